# on the machine that runs the agents
seat board --port 8088
# on the phone (Termux, Blink, …) or a laptop
ssh -N -L 8088:127.0.0.1:8088 you@agents-host
