seat notify list                       # the targets of the config file, without secrets
seat notify test hook                  # send a sample event now; exit 0 when it arrived
seat run --notify hook --notify chat "fix the failing test"
seat run --notify none "quick question"   # no notification, no terminal bell
