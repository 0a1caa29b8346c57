"""The worker's environment: secrets and LLM endpoint settings never reach cell code."""

from pyrua_agent.runtime.process import scrubbed_environment


def test_secrets_and_endpoint_settings_are_removed():
    env = scrubbed_environment({
        'PATH': '/usr/bin', 'HOME': '/home/me', 'OPENAI_BASE_URL': 'http://x',
        'OPENAI_API_KEY': 'sk', 'ANTHROPIC_MODEL': 'm', 'GITHUB_TOKEN': 't',
        'db_password': 'p', 'MY_SECRET_FILE': 's', 'SSH_AUTH_SOCK': '/tmp/a',
        'API_KEY_FILE': 'k'})
    assert env['PATH'] == '/usr/bin' and env['HOME'] == '/home/me'
    for name in ('OPENAI_BASE_URL', 'OPENAI_API_KEY', 'ANTHROPIC_MODEL', 'GITHUB_TOKEN',
                 'db_password', 'MY_SECRET_FILE', 'API_KEY_FILE'):
        assert name not in env
    assert env['OPENBLAS_NUM_THREADS'] == '1'
