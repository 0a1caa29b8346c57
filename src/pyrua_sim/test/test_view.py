import cv2
from pyrua_sim.view import contact_sheet, render_views
import pytest


def test_render_views_writes_three_camera_pngs_per_layout(tmp_path):
    paths = render_views('stack_blocks', 0, [0], tmp_path)
    assert [p.name for p in paths] == [
        'stack_blocks_s0_i00_head.png', 'stack_blocks_s0_i00_left_wrist.png',
        'stack_blocks_s0_i00_right_wrist.png',
    ]
    for path in paths:
        image = cv2.imread(str(path))
        assert image.shape == (480, 640, 3)
        assert image.std() > 5, f'{path.name} is blank'


def test_contact_sheet_is_a_labelled_grid(tmp_path):
    (sheet,) = contact_sheet('pick_place', 0, [0, 25, 26], tmp_path, columns=2)
    image = cv2.imread(str(sheet))
    assert sheet.name == 'pick_place_s0_sheet.png'
    assert image.shape == (2 * (240 + 66), 2 * 320, 3)


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match='unknown task'):
        render_views('pick_palce', 0, [0], tmp_path)
    with pytest.raises(ValueError, match='layout index 77'):
        contact_sheet('pick_place', 0, [77], tmp_path)
    with pytest.raises(ValueError, match='contact sheet of 0 layouts'):
        contact_sheet('pick_place', 0, [], tmp_path)
