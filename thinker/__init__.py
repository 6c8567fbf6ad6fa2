"""The Thinker: the agent runtime (context, LLM loop, sessions, cost controls)."""
