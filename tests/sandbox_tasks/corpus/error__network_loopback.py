# expect: Operation not permitted
import socket

connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
connection.settimeout(1)
connection.connect(("127.0.0.1", args["port"]))
