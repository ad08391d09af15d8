export GROK_SEAT_BOARD_TOKEN="$(openssl rand -base64 32)"
seat board --port 8088 --public-url https://board.example.com
