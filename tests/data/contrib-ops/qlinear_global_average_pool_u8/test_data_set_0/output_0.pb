BYJ
k¿`sm{“VÄg