from pyrua_primitives.perception import DEFAULT_SEGMENTER, make_segmenter, SEGMENTERS
import pytest


def test_registry_holds_the_three_backends_and_color_is_default():
    assert sorted(SEGMENTERS) == ['color', 'oracle', 'sam3']
    assert DEFAULT_SEGMENTER == 'color'
    assert make_segmenter().name == 'color'


def test_make_segmenter_refuses_unknown_name_with_suggestion():
    with pytest.raises(ValueError, match="unknown segmenter 'colour'; did you mean 'color'"):
        make_segmenter('colour')
