from orchestrator.serve import serve

serve()
