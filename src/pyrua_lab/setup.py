from setuptools import find_packages, setup

package_name = 'pyrua_lab'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    package_data={package_name: ['evaluation/specs/*.yaml', 'training/*.jinja']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    python_requires='>=3.10',
    install_requires=[
        'setuptools',
        'numpy>=1.26',
        'opencv-python-headless>=4.6',
        # pyrua analyze draws its plots with the Agg backend.
        'matplotlib>=3.7',
        'pyyaml>=6',
        # pyrua eval's progress bar.
        'tqdm>=4.60',
        'pyrua_primitives',
        'pyrua_sim',
        'pyrua_agent',
    ],
    extras_require={
        # pyrua eval --executor ray (about 80 MB; setup.sh --test installs it for the tests).
        'ray': ['ray>=2.9'],
        'test': ['pytest>=8'],
        # GRPO training (pyrua train): the policy, its optimizer, TRL's GRPO pieces and
        # peft's LoRA adapters (lora_rank > 0).
        'train': ['torch>=2.4', 'transformers>=4.56', 'trl>=0.23', 'accelerate>=1.4',
                  'peft>=0.13',
                  # GGUF in (from_pretrained(gguf_file=...)) and out (pyrua export --format gguf).
                  'gguf>=0.10'],
    },
    zip_safe=False,
    maintainer='PyRUA-Lean developers',
    maintainer_email='pyrua@example.org',
    description=(
        'Evaluation at scale, analysis, the cost model, GRPO training, export and the '
        'episode report: the lab subcommands of pyrua.'
    ),
    license='Apache-2.0',
    entry_points={
        # The world registry (pyrua_primitives.world): each world's WorldEntry.
        'pyrua.worlds': [
            'toy = pyrua_lab.training.toy:TOY',
        ],
    },
)
