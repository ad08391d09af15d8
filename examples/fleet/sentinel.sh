seat worker --redis 'redis+sentinel://10.0.0.5:26379,10.0.0.6:26379,10.0.0.7:26379/fleet'   # rediss+sentinel:// for TLS
