"""Telegram MCP: the chat channel, on the Telegram Bot API through python-telegram-bot.

A polling task (started only when `TELEGRAM_BOT_TOKEN` is set) long-polls `getUpdates`, keeps the messages of
allowed chats in a local SQLite store with the update offset, and the tools read that store or call the Bot API.
The hub reads new messages through `intake_pending`/`intake_ack`, a cursor it acknowledges only after replying.
"""
