"""The LLM fallback: only SAUs the rules leave unresolved go to an LLM judge, with the static evidence as whole
function bodies or config blocks, through the openai client; every exchange is recorded so that a run replays
byte for byte, offline.

Modules: ``evidence`` (code blocks from the repository index), ``prompt`` (messages and answer validation),
``store`` (recordings), ``client`` (the OpenAI-compatible endpoint), ``judge`` (routing, batching, budget,
verdicts), ``regression`` (saved decisions and their comparison, also for a user's pytest suite).
"""
