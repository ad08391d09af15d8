claude mcp add --scope project seat -- seat mcp --allow read
