"""
The ``sam3`` segmenter: SAM 3 (transformers ``Sam3Model``) prompted with the query text.

Optional extra: torch and transformers are imported when a segmenter is built, never at
import time, and a missing one raises ``MissingDependency`` with the pip command. Weights
load from a local directory only (``local_files_only=True``); nothing is downloaded.
Preprocessing is done here (resize, normalise with mean = std = 0.5) because
transformers' ``Sam3Processor`` needs torchvision, which is not part of the extra.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .query import ObjectQuery
from .segmenter import Detection, register_segmenter
from ..errors import MissingDependency
from ..station import CameraFrame

PIP_COMMAND = "pip install 'torch==2.13.0' 'transformers>=5.0' tokenizers"
MAX_TEXT_TOKENS = 32


def _require_torch() -> tuple[object, object]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise MissingDependency(
            f'the sam3 segmenter needs torch and transformers ({exc.name} is missing); '
            f'run `{PIP_COMMAND}`, or use the color segmenter'
        ) from exc
    if not hasattr(transformers, 'Sam3Model'):
        raise MissingDependency(
            f'transformers {transformers.__version__} has no Sam3Model vs 5.0 or newer; '
            f'run `{PIP_COMMAND}`'
        )
    return torch, transformers


@register_segmenter('sam3')
class Sam3Segmenter:
    """SAM 3 text-prompted instance masks from a local checkpoint (CPU or CUDA)."""

    name = 'sam3'

    def __init__(
        self,
        checkpoint_path: str | Path,
        device: str = 'cpu',
        score_threshold: float = 0.5,
        mask_threshold: float = 0.5,
    ):
        """
        Load model and tokenizer from ``checkpoint_path`` (never from a hub).

        :param checkpoint_path: a directory written by ``save_pretrained`` (config, weights,
            tokenizer files).
        :param device: torch device, e.g. ``'cpu'`` or ``'cuda'``.
        :param score_threshold: keep instances whose score (query logit times presence
            logit, both through a sigmoid) is at least this, 0..1.
        :param mask_threshold: mask probability threshold, 0..1.
        :raises MissingDependency: without torch or transformers, with the pip command.
        :raises FileNotFoundError: when ``checkpoint_path`` is not a directory.
        :raises ValueError: for thresholds outside 0..1.
        """
        for label, value in (('score_threshold', score_threshold),
                             ('mask_threshold', mask_threshold)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f'sam3 {label} {value} vs 0..1; pass a probability')
        path = Path(checkpoint_path)
        torch, transformers = _require_torch()
        if not path.is_dir():
            raise FileNotFoundError(
                f'sam3 checkpoint {str(path)!r} is not a directory vs a save_pretrained folder; '
                'download the SAM 3 weights yourself and pass their local path (never fetched)'
            )
        self._torch = torch
        self._device = device
        self._model = transformers.Sam3Model.from_pretrained(path, local_files_only=True)
        self._model.eval().to(device)
        self._tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
        backbone = self._model.config.vision_config.backbone_config
        self._image_size = int(backbone.image_size)
        self._score_threshold = score_threshold
        self._mask_threshold = mask_threshold

    def _pixel_values(self, rgb: np.ndarray) -> object:
        size = self._image_size
        resized = cv2.resize(rgb, (size, size), interpolation=cv2.INTER_LINEAR)
        scaled = (resized.astype(np.float32) / 255.0 - 0.5) / 0.5
        tensor = self._torch.from_numpy(np.ascontiguousarray(scaled.transpose(2, 0, 1)))
        return tensor[None].to(self._device)

    def segment(self, frame: CameraFrame, query: ObjectQuery) -> list[Detection]:
        """Return instances of ``query.phrase`` scoring above the threshold, best first."""
        torch = self._torch
        tokens = self._tokenizer(
            [query.phrase], padding='max_length', max_length=MAX_TEXT_TOKENS,
            truncation=True, return_tensors='pt',
        )
        with torch.no_grad():
            out = self._model(
                pixel_values=self._pixel_values(frame.rgb),
                input_ids=tokens['input_ids'].to(self._device),
                attention_mask=tokens['attention_mask'].to(self._device),
            )
            scores = torch.sigmoid(out.pred_logits[0])
            if out.presence_logits is not None:
                scores = scores * torch.sigmoid(out.presence_logits[0])
            h, w = frame.rgb.shape[:2]
            probs = torch.sigmoid(torch.nn.functional.interpolate(
                out.pred_masks[0][None].float(), size=(h, w), mode='bilinear',
                align_corners=False,
            )[0])
        scores_np = scores.float().cpu().numpy().reshape(-1)
        masks_np = (probs > self._mask_threshold).cpu().numpy()
        found = [
            Detection(mask=masks_np[i], score=float(scores_np[i]), label=query.phrase)
            for i in np.argsort(-scores_np)
            if scores_np[i] >= self._score_threshold and masks_np[i].any()
        ]
        return found
