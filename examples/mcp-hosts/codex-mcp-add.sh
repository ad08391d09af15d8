codex mcp add seat -- seat mcp --allow read
