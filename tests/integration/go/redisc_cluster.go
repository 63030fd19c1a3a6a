// redisc (Debian's golang-github-mna-redisc-dev, a Go cluster client on redigo) against a
// ringcache cluster whose node or main port is 127.0.0.1:<argv[1]>: it reads the slot map
// with CLUSTER SLOTS, binds each connection to its key's node and round-trips keys over
// every node with no redirection, runs a hash-tagged MSET, gets CROSSSLOT from a node,
// and follows a MOVED. Run by tests/integration/test_cluster.py (GOPATH=/usr/share/gocode,
// GO111MODULE=off).
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

func check(ok bool, format string, args ...interface{}) {
	if !ok {
		fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
		os.Exit(1)
	}
}

// do runs one command on a connection bound to the slot of keys[0].
func do(c *redisc.Cluster, keys []string, cmd string, args ...interface{}) (interface{}, error) {
	conn := c.Get()
	defer conn.Close()
	if err := redisc.BindConn(conn, keys...); err != nil {
		return nil, err
	}
	return conn.Do(cmd, args...)
}

func main() {
	c := &redisc.Cluster{
		StartupNodes: []string{"127.0.0.1:" + os.Args[1]},
		CreatePool: func(addr string, opts ...redis.DialOption) (*redis.Pool, error) {
			return &redis.Pool{MaxIdle: 4, Dial: func() (redis.Conn, error) {
				return redis.Dial("tcp", addr, opts...)
			}}, nil
		},
	}
	defer c.Close()
	check(c.Refresh() == nil, "CLUSTER SLOTS not understood")

	// A wrong binding would get -MOVED, which a plain connection returns as an error.
	const n = 2000
	for i := 0; i < n; i++ {
		k := "go:" + strconv.Itoa(i)
		r, err := redis.String(do(c, []string{k}, "SET", k, i))
		check(err == nil && r == "OK", "SET %s: %q %v", k, r, err)
	}
	for i := 0; i < n; i++ {
		k := "go:" + strconv.Itoa(i)
		v, err := redis.Int(do(c, []string{k}, "GET", k))
		check(err == nil && v == i, "GET %s: %d %v", k, v, err)
	}

	// Each node the client used holds a share of the keys.
	nodes := 0
	for addr := range c.Stats() {
		conn, err := redis.Dial("tcp", addr)
		check(err == nil, "dial %s: %v", addr, err)
		size, err := redis.Int(conn.Do("DBSIZE"))
		conn.Close()
		check(err == nil && size > 0, "DBSIZE on %s: %d %v", addr, size, err)
		nodes++
	}
	check(nodes >= 3, "%d nodes used", nodes)

	r, err := redis.String(do(c, []string{"{go}a", "{go}b"}, "MSET", "{go}a", "1", "{go}b", "2"))
	check(err == nil && r == "OK", "hash-tagged MSET: %q %v", r, err)
	vals, err := redis.Strings(do(c, []string{"{go}a", "{go}b"}, "MGET", "{go}a", "{go}b"))
	check(err == nil && len(vals) == 2 && vals[0] == "1" && vals[1] == "2", "MGET: %v %v", vals, err)
	_, err = do(c, []string{"a"}, "MSET", "a", "1", "b", "2")
	check(err != nil && strings.HasPrefix(err.Error(), "CROSSSLOT"), "cross-slot MSET: %v", err)

	// "b" (slot 3300) is not on the node of "a" (15495): RetryConn follows the MOVED.
	conn := c.Get()
	check(redisc.BindConn(conn, "a") == nil, "bind")
	rc, err := redisc.RetryConn(conn, 3, 10*time.Millisecond)
	check(err == nil, "RetryConn: %v", err)
	r, err = redis.String(rc.Do("SET", "b", "moved"))
	check(err == nil && r == "OK", "SET b through a MOVED: %q %v", r, err)
	rc.Close()
	fmt.Println("ok")
}
