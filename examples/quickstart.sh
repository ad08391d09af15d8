npm install grok-seat
npx seat demo      # offline demo: the real grok from npm + a scripted model on loopback
