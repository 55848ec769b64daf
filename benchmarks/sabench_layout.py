"""SA-Bench's configs, as the benchmark scripts use them (../shared/sabench/README.md).

Nine configs have recorded decisions and are for development; three are held out to measure the project on
repositories it was not tuned on, and no script reads them unless asked by name.
"""

DEVELOPMENT_CONFIGS = ("claude-sonnet_basic", "deepseek_basic", "deepseek_papercoder", "gemini-flash_papercoder",
                       "gpt4o_basic", "gpt4o_papercoder", "openhands_claude", "openhands_gemini", "openhands_gpt4o")
HELD_OUT_CONFIGS = ("claude-sonnet_papercoder", "gemini-flash_basic", "openhands_deepseek")
