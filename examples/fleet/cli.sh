seat worker --redis redis://10.0.0.5:6379 --concurrency 2 --name build-01 --tools ./tools.mjs
seat submit --redis redis://10.0.0.5:6379 --allow mcp --cwd /srv/repo "summarise the open issues"   # prints the id
seat submit --redis … --wait "…"          # streams seat run --json's NDJSON (+ job lines), same exit codes
seat jobs list | show ID | watch ID [--from CURSOR] | cancel ID [--ack-timeout SECS]
