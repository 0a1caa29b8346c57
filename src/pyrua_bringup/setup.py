from glob import glob
import os

from setuptools import find_packages, setup

package_name = 'pyrua_bringup'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        (os.path.join('share', package_name, 'launch'), glob('launch/*.launch.py')),
        (os.path.join('share', package_name, 'config'), glob('config/*.yaml')),
    ],
    python_requires='>=3.10',
    install_requires=['setuptools'],
    extras_require={'test': ['pytest>=8', 'pyyaml>=6']},
    zip_safe=True,
    maintainer='PyRUA-Lean developers',
    maintainer_email='pyrua@example.org',
    description=(
        'Launch files and configuration of PyRUA-Lean: simulated twin, real station, bag replay.'
    ),
    license='Apache-2.0',
    entry_points={
        'console_scripts': [],
    },
)
