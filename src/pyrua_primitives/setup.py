from setuptools import find_packages, setup

package_name = 'pyrua_primitives'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    package_data={},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    python_requires='>=3.10',
    install_requires=[
        'setuptools',
        'numpy>=1.26',
        'opencv-python-headless>=4.6',
        # The goal <-> kwargs mapping of the action primitives reads the .action files with
        # rosbags' message parser (conversions/goal_mapping.py).
        'rosbags>=0.11,<0.12',
    ],
    extras_require={
        'test': ['pytest>=8'],
        # The sam3 segmenter; torch==2.13.0 is the CPU build (a range would pull CUDA).
        'sam3': ['torch==2.13.0', 'transformers>=5.0', 'tokenizers'],
        # VLA policy clients and server (openpi's msgpack-numpy over websockets); openpi-client
        # itself is not needed (it pins numpy<2).
        'vla': ['msgpack>=1.0', 'websockets>=15'],
    },
    zip_safe=False,
    maintainer='PyRUA-Lean developers',
    maintainer_email='pyrua@example.org',
    description=(
        'Primitive library, RGB perception, kinematics and the Station interface.'
    ),
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'primitives_node = pyrua_primitives.ros.primitives_node:main',
        ],
    },
)
