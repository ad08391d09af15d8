seat ps                                  # after a reboot: each seat and named session that was live shows "lost"
seat ps --json | jq 'select(.state == "lost") | {id, inFlight}'
seat restore gs-1a2b3c4d                 # one seat, back under the same id, its grok session resumed
seat restore --all                       # everything that was lost
