from orchestrator.cli import serve

serve()
