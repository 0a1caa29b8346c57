import cv2
import numpy as np
from pyrua_primitives import CameraFrame, CameraIntrinsics, CameraModel
from pyrua_primitives.perception import make_segmenter, parse_query, UnsupportedQuery
from pyrua_primitives.perception.color import colour_labels
import pytest


def _frame(rgb: np.ndarray) -> CameraFrame:
    k = CameraIntrinsics(rgb.shape[1], rgb.shape[0], 100.0, 100.0, 80.0, 60.0)
    return CameraFrame('head', rgb, CameraModel('head', k, np.eye(4), 0.0), 0.0)


@pytest.fixture
def picture() -> np.ndarray:
    """Draw a beige table with a red square, a dim red square, and a yellow cross."""
    img = np.full((120, 160, 3), (184, 173, 153), np.uint8)
    img[20:40, 20:40] = (217, 26, 26)
    img[70:90, 20:40] = (110, 14, 14)
    img[60:66, 90:130] = (242, 217, 26)
    img[43:83, 107:113] = (242, 217, 26)
    return img


def test_colour_labels_name_pixels_and_ignore_unsaturated_table(picture):
    labels, names = colour_labels(picture)
    assert names[labels[30, 30]] == 'red'
    assert names[labels[62, 100]] == 'yellow'
    assert labels[5, 5] == -1


def test_a_clipped_yellow_highlight_is_yellow_and_an_orange_face_stays_orange():
    # Seed 555 layout 10-19 handover 17: a yellow bowl's lit rim (255, 255, 60) was labelled
    # orange, so locate_all('orange bowl') found the yellow bowl (issue 24).
    img = np.full((4, 3, 3), (184, 173, 153), np.uint8)
    img[0] = [(255, 255, 60), (255, 250, 48), (252, 244, 90)]  # clipped yellow highlights
    img[1] = [(196, 102, 10), (255, 193, 42), (250, 190, 100)]  # orange faces, lit, specular
    labels, names = colour_labels(img)
    assert [names[k] for k in labels[0]] == ['yellow'] * 3
    assert [names[k] for k in labels[1]] == ['orange'] * 3


def test_color_segmenter_returns_each_red_component(picture):
    dets = make_segmenter('color').segment(_frame(picture), parse_query('red block'))
    assert [d.pixels for d in dets] == [400, 400]
    assert all(d.label == 'red block' for d in dets)


def test_color_segmenter_tells_crosses_from_solid_outlines(picture):
    seg = make_segmenter('color')
    assert seg.segment(_frame(picture), parse_query('yellow block')) == []
    crosses = seg.segment(_frame(picture), parse_query('yellow marker'))
    assert len(crosses) == 1 and crosses[0].pixels == 40 * 6 + 40 * 6 - 36


def test_color_segmenter_without_colour_searches_every_colour(picture):
    img = picture.copy()
    cv2.rectangle(img, (60, 90), (80, 110), (26, 77, 230), cv2.FILLED)
    dets = make_segmenter('color').segment(_frame(img), parse_query('block'))
    assert sorted(d.label for d in dets) == ['blue block', 'red block', 'red block']


def test_color_segmenter_refuses_uncoloured_fixtures(picture):
    # A cell cannot pick another segmenter: the refusal names what a cell can do instead.
    with pytest.raises(UnsupportedQuery, match=r"uncoloured 'hole' \(the segmenter is chosen "
                       r'when the episode starts, not in a cell\); find it yourself: .*robo'
                       r'\.image\(camera\) \(a cell can import cv2\), then robo\.back_project'):
        make_segmenter('color').segment(_frame(picture), parse_query('hole'))
