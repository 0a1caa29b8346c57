from setuptools import find_packages, setup

package_name = 'pyrua_agent'

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
        'pyyaml>=6',
        'pyrua_primitives',
        'pyrua_sim',
    ],
    extras_require={'test': ['pytest>=8']},
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
        ],
    },
)
