import importlib.util

import numpy as np
from pyrua_primitives import CameraFrame, CameraIntrinsics, CameraModel, MissingDependency
from pyrua_primitives.perception import make_segmenter, parse_query
import pytest

HAVE_TORCH = importlib.util.find_spec('torch') is not None


def _frame(h=48, w=64) -> CameraFrame:
    rgb = np.random.default_rng(0).integers(0, 255, (h, w, 3), dtype=np.uint8)
    k = CameraIntrinsics(w, h, 50.0, 50.0, w / 2, h / 2)
    return CameraFrame('head', rgb, CameraModel('head', k, np.eye(4), 0.0), 0.0)


@pytest.mark.skipif(HAVE_TORCH, reason='torch is installed: the missing-extra path is not taken')
def test_sam3_without_torch_says_how_to_install_it(tmp_path):
    pip = r"pip install 'torch==2.13.0' 'transformers>=5.0'"
    with pytest.raises(MissingDependency, match=pip):
        make_segmenter('sam3', checkpoint_path=tmp_path)


@pytest.fixture
def tiny_checkpoint(tmp_path):
    """Save a randomly initialised 231k-parameter Sam3Model and a word tokenizer locally."""
    torch = pytest.importorskip('torch', reason='sam3 needs the optional torch extra')
    transformers = pytest.importorskip('transformers', reason='sam3 needs transformers')
    from tokenizers import models, pre_tokenizers, Tokenizer

    torch.manual_seed(0)
    cfg = transformers.Sam3Config(
        vision_config={
            'backbone_config': {
                'model_type': 'sam3_vit_model', 'hidden_size': 32, 'intermediate_size': 64,
                'num_hidden_layers': 2, 'num_attention_heads': 2, 'image_size': 64,
                'patch_size': 8, 'window_size': 4, 'global_attn_indexes': [1],
                'pretrain_image_size': 64},
            'fpn_hidden_size': 32, 'backbone_feature_sizes': [[32, 32], [16, 16], [8, 8]]},
        text_config={
            'vocab_size': 100, 'hidden_size': 32, 'intermediate_size': 64, 'projection_dim': 32,
            'num_hidden_layers': 1, 'num_attention_heads': 2, 'max_position_embeddings': 32},
        geometry_encoder_config={
            'hidden_size': 32, 'num_layers': 1, 'num_attention_heads': 2, 'intermediate_size': 64},
        detr_encoder_config={
            'hidden_size': 32, 'num_layers': 1, 'num_attention_heads': 2, 'intermediate_size': 64},
        detr_decoder_config={
            'hidden_size': 32, 'num_layers': 1, 'num_queries': 10, 'num_attention_heads': 2,
            'intermediate_size': 64},
        mask_decoder_config={
            'hidden_size': 32, 'num_attention_heads': 2, 'num_upsampling_stages': 3},
    )
    transformers.Sam3Model(cfg).save_pretrained(tmp_path)
    vocab = {'[PAD]': 0, '[UNK]': 1, 'red': 2, 'block': 3, 'blue': 4, 'bowl': 5}
    words = Tokenizer(models.WordLevel(vocab, unk_token='[UNK]'))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    transformers.PreTrainedTokenizerFast(
        tokenizer_object=words, pad_token='[PAD]', unk_token='[UNK]').save_pretrained(tmp_path)
    return tmp_path


@pytest.mark.torch
def test_sam3_tiny_model_returns_frame_sized_masks_best_first(tiny_checkpoint):
    seg = make_segmenter('sam3', checkpoint_path=tiny_checkpoint, score_threshold=0.0)
    assert seg.name == 'sam3'
    dets = seg.segment(_frame(), parse_query('red block'))
    assert dets, 'a random model with threshold 0 still returns its non-empty masks'
    assert all(d.mask.shape == (48, 64) and d.mask.dtype == bool for d in dets)
    scores = [d.score for d in dets]
    assert scores == sorted(scores, reverse=True) and 0.0 <= scores[-1] <= scores[0] <= 1.0
    assert {d.label for d in dets} == {'red block'}
    strict = make_segmenter('sam3', checkpoint_path=tiny_checkpoint, score_threshold=1.0)
    assert strict.segment(_frame(), parse_query('red block')) == []


@pytest.mark.torch
def test_sam3_refuses_a_missing_checkpoint_instead_of_downloading(tmp_path):
    pytest.importorskip('torch', reason='sam3 needs the optional torch extra')
    with pytest.raises(FileNotFoundError, match='is not a directory vs a save_pretrained folder'):
        make_segmenter('sam3', checkpoint_path=tmp_path / 'facebook-sam3')


def test_sam3_refuses_thresholds_outside_0_to_1(tmp_path):
    with pytest.raises(ValueError, match='sam3 score_threshold 1.5 vs 0..1'):
        make_segmenter('sam3', checkpoint_path=tmp_path, score_threshold=1.5)
