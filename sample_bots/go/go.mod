module arena.example/starter-bot

go 1.22

require github.com/pebbe/zmq4 v1.4.0
