npm ci && npm run demo     # offline demo: the real grok from npm + a scripted model on loopback
npm test                   # the whole suite, real grok binary included, hermetic and offline
