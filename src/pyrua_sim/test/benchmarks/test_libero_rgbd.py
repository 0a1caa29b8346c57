"""
LIBERO's non-privileged ``rgbd`` perception: frames in, named objects out, no simulator.

The proof that no simulator state reaches it: the frames, the station's calibration and the
robot's TCP are saved, the world is closed, and a separate Python process that never imports
LIBERO or robosuite (so holds no environment at all) locates the same objects from those
saved values alone, to the same numbers. Needs the ``libero`` extra.
"""

import importlib.util
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec('libero') is None,
                       reason='needs the LIBERO extra: pip install -e src/pyrua_sim[libero]'),
    pytest.mark.filterwarnings('ignore::DeprecationWarning'),
    pytest.mark.filterwarnings('ignore::UserWarning'),
    pytest.mark.filterwarnings('ignore::FutureWarning'),
]

REPLAY = textwrap.dedent("""
    import json, sys
    import numpy as np
    from pyrua_primitives.station import CameraFrame, CameraIntrinsics, CameraModel
    from pyrua_sim.benchmarks.libero.catalogue import CatalogueEntry
    from pyrua_sim.benchmarks.libero.rgbd import RgbdLocator

    saved = np.load(sys.argv[1], allow_pickle=False)
    meta = json.loads(str(saved['meta']))
    model = CameraModel('agentview', CameraIntrinsics(**meta['intrinsics']),
                        saved['world_from_camera'], 0.0)
    frame = CameraFrame('agentview', saved['rgb'], model, 0.0, saved['depth'])
    catalogue = {c: CatalogueEntry(c, tuple(saved[f'size_{c}']), saved[f'hist_{c}'])
                 for c in meta['categories']}
    locator = RgbdLocator(lambda camera, depth=False: frame, lambda: meta['table'],
                          lambda: meta['tcp'], lambda: meta['base'],
                          [tuple(i) for i in meta['instances']], catalogue)
    out = {name: list(locator.locate(name).position_m) for name in locator.objects()}
    assert 'libero' not in sys.modules and 'robosuite' not in sys.modules, 'a simulator'
    print(json.dumps(out))
""")


def test_rgbd_locates_from_saved_frames_alone_as_it_does_live(tmp_path):
    from pyrua_sim.benchmarks import load

    with load('libero_spatial/0', 0) as world:
        locator = world.rgbd
        names = locator.objects()
        live = {name: locator.locate(name) for name in names}
        truth = {name: world.oracle.locate(name) for name in names}
        station = world.station
        frame = station.capture('agentview', depth=True)
        k = frame.model.intrinsics
        categories = sorted({c for _, c in locator._instances})
        meta = {'intrinsics': {'width': k.width, 'height': k.height, 'fx': k.fx, 'fy': k.fy,
                               'cx': k.cx, 'cy': k.cy},
                'table': station.table_height_m(),
                'tcp': station.tcp_pose('arm')[:3, 3].tolist(),
                'base': station.arm_base('arm').world_from_base[:3, 3].tolist(),
                'instances': [list(i) for i in locator._instances], 'categories': categories}
        arrays = {'rgb': frame.rgb, 'depth': frame.depth_m,
                  'world_from_camera': frame.model.world_from_camera, 'meta': json.dumps(meta)}
        for c in categories:
            arrays[f'size_{c}'] = np.array(locator._catalogue[c].size_m)
            arrays[f'hist_{c}'] = locator._catalogue[c].histograms
        np.savez(tmp_path / 'scene.npz', **arrays)
    # the world is closed: replay in a process that has no LIBERO environment at all
    done = subprocess.run([sys.executable, '-c', REPLAY, str(tmp_path / 'scene.npz')],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    replayed = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(replayed) == sorted(names)
    for name in names:
        assert np.allclose(replayed[name], live[name].position_m, atol=1e-9), name
    # and it is right: the bowls, the ramekin, the cookies and the plate within 2 cm
    for name in ('akita_black_bowl_1', 'akita_black_bowl_2', 'cookies_1',
                 'glazed_rim_porcelain_ramekin_1', 'plate_1'):
        assert name in live, f'{name} not seen; seen {names}'
        error = np.abs(np.subtract(live[name].position_m, truth[name].position_m))
        assert error.max() < 0.02, (name, error)
        assert live[name].height_source == 'depth' and live[name].bound_m is not None
        assert 'perception: rgbd' in live[name].note


def test_rgbd_says_what_it_did_not_see(tmp_path):
    from pyrua_sim.benchmarks import load

    with load('libero_object/0', 0) as world:
        missing = world.rgbd.locate('ketchup_1')
        assert not missing.found and 'not an object of this task' in missing.reason
        assert 'basket_1' in missing.reason  # what it does see
