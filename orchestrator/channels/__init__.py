"""Chat channels: what arrives from a person, how it reaches an agent, and how the reply goes back."""
