#!/usr/bin/env python3
"""The `s3-crt` method's client: the S3 API through the AWS Common Runtime (aws-c-s3, PyPI awscrt).

One long-lived process per session, driven by runner/methods/s3-crt.impl.ts over a line protocol:
one JSON object per line on stdin, one per line on stdout.

  request   {"id": 1, "op": "put", "key": "a/b", "path": "/local/file", "size": 123}
            {"id": 2, "op": "get", "key": "a/b", "path": "/local/out"}      (the CRT writes the file)
            {"id": 3, "op": "list", "key": "prefix/"}                       (every page)
            {"id": 4, "op": "head", "key": "a/b"}
            {"id": 5, "op": "delete", "key": "a/b"}
  response  {"id": 1, "ok": true, "latency_ns": 123456, "bytes": 123}
            {"id": 3, "ok": true, "latency_ns": ..., "bytes": 0, "entries": [["rel/key", 42], ...]}
            {"id": 4, "ok": false, "latency_ns": ..., "error": "NoSuchKey: ... (HTTP 404, GetObject)"}

Before any request the process prints {"ready": true, "version": ..., "config": {...}}.
`latency_ns` is measured around the CRT request(s) only: from make_request to the CRT's on_done
(a list: from its first page's request to its last page parsed, as an SDK's call includes its
parsing), so process start, this protocol and the JSON do not count.
Requests run concurrently (one thread each, blocking on the CRT). GET and PUT are the CRT's own
meta requests: parallel ranged GETs / multipart upload. A PUT reads its file in native code
(send_filepath). The CRT delivers a GET's parts in order, one at a time, on one event-loop thread,
to the body callback; awscrt's binding hands the callback each part as a bytes object of its own (it
copies the CRT's buffer: `y#` in aws-crt-python's s3_meta_request.c). With --writers N (the
runner's default: 1) the callback only queues the part and N writer threads write the parts at
their offsets, in pwrite calls of --write-size bytes (the runner's default: 32 KiB; pwrite releases
the GIL), so the delivery thread goes on receiving while earlier parts are written, as s5cmd's
goroutines write while others read; with --writers 0 the callback writes each part before the CRT
may deliver the next. --write-size 0 lets the CRT write the file itself (recv_filepath): one write
of the part's size per part, from several event-loop threads at once. Large writes are slow on a
VM that returns free memory to its host (virtio-balloon free page reporting, as here): the copy
into the page cache itself takes the time (perf: 43-70% of the writer's samples in
copy_folio_from_iter_atomic), as when the destination pages fault on the host; the kernel backs a
large write with large folios, from the high-order free blocks that page reporting hands back,
while small writes reuse recently freed small pages (our reading of the evidence). More than one writer
only queues on the file's inode lock (perf: rwsem_spin_on_owner, 7-16% of the client's samples).
docs/performance.md has the figures (bench:transfer); s5cmd writes about 32 KiB at a time.
The GET's latency includes the writes and closing the file.

--socket-read-size sets aws-c-io's `g_aws_channel_max_fragment_size` (its channel.h: the most a
channel reads or writes in one message; 16 KiB by default) before the client is made: at 16 KiB the
CRT reads a GET's body in 16 KiB read() calls, each after an epoll wake-up, about 75,000 reads and
17,000 wake-ups per GiB, where s5cmd makes 34,000 reads of 32 KiB (strace -c, docs/performance.md).
That CPU is the GET's ceiling on a host whose cores are busy (the CRT's own ones on EC2; here, the
server's too). The binding does not expose the global, so it is found by name in the extension's
symbol table and written at its address in this process; where it cannot be found (a stripped or
changed build) the client says so in its config (`socket_read_size`) and runs with the default.

Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_SESSION_TOKEN), never argv; without them the CRT's default chain (profile, IMDS...) is used.
`--version` prints {"version": ...} and exits (the runner's probe).
"""
import argparse
import json
import os
import queue
import sys
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET


def version_string():
    import awscrt
    return f"awscrt {awscrt.__version__} (aws-c-s3)"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--version', action='store_true', help='print the awscrt version as JSON and exit')
    p.add_argument('--endpoint', default='', help='endpoint URL (http://127.0.0.1:PORT); empty: AWS regional endpoint')
    p.add_argument('--region', default='us-east-1')
    p.add_argument('--bucket', default='')
    p.add_argument('--path-style', action='store_true', help='path-style addressing (http://host/bucket/key)')
    p.add_argument('--part-size', type=int, default=8 * 1024 * 1024, help='bytes per part (multipart upload, ranged GET)')
    p.add_argument('--target-gbps', type=float, default=10.0, help="the CRT's throughput target: sets its connection count")
    p.add_argument('--max-connections', type=int, default=0, help='cap on active connections per request (0: from the target)')
    p.add_argument('--memory-limit', type=int, default=0, help="bytes the CRT may buffer (0: the CRT's default)")
    p.add_argument('--event-loop-threads', type=int, default=0, help='event-loop threads (0: one per CPU)')
    p.add_argument('--write-size', type=int, default=64 * 1024,
                   help="bytes per pwrite of a GET's body (0: the CRT writes the file itself, recv_filepath)")
    p.add_argument('--writers', type=int, default=0,
                   help="threads that write a GET's parts into its file (0: the CRT's body callback writes them itself)")
    p.add_argument('--socket-read-size', type=int, default=0,
                   help="bytes per socket read and channel message (aws-c-io's g_aws_channel_max_fragment_size; 0: the CRT's 16 KiB)")
    p.add_argument('--checksum', default='CRC32', choices=['CRC32', 'CRC32C', 'SHA256', 'none'],
                   help='upload checksum (trailer), validated on GET when the object has one')
    return p.parse_args(argv)


def large_blocks():
    """Where glibc's malloc puts a 64 MiB block: 'heap' when the runner's GLIBC_TUNABLES took effect
    (mmap_max=0: freed blocks stay in the process for the next request), 'mmap' with glibc's
    defaults (a freed block goes back to the system at once), 'unknown' without glibc."""
    import ctypes
    try:
        libc = ctypes.CDLL(None)
        fields = ('arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost')

        class MallInfo2(ctypes.Structure):
            _fields_ = [(f, ctypes.c_size_t) for f in fields]
        libc.mallinfo2.restype = MallInfo2
        libc.malloc.restype = ctypes.c_void_p
        libc.malloc.argtypes = [ctypes.c_size_t]
        libc.free.argtypes = [ctypes.c_void_p]
        before = libc.mallinfo2().hblks
        block = libc.malloc(64 * 1024 * 1024)  # never touched: no page is made resident
        mapped = libc.mallinfo2().hblks - before
        libc.free(block)
        return 'mmap' if mapped > 0 else 'heap'
    except (OSError, AttributeError):
        return 'unknown'


def elf_symbol_value(path, name):
    """The st_value of symbol `name` in the ELF64 little-endian file's .symtab (local symbols
    included, which the dynamic linker cannot find), or None."""
    import struct
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum = struct.unpack_from('<HH', data, 0x3A)
    sections = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    wanted = name.encode()
    for sh_name, sh_type, _flags, _addr, sh_offset, sh_size, sh_link, *_ in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        names = sections[sh_link][4]
        for off in range(sh_offset, sh_offset + sh_size, 24):
            st_name, _info, _other, _shndx, st_value, _size = struct.unpack_from('<IBBHQQ', data, off)
            start = names + st_name
            if data[start:start + len(wanted) + 1] == wanted + b'\0':
                return st_value
    return None


def set_socket_read_size(size):
    """Writes aws-c-io's g_aws_channel_max_fragment_size in the loaded extension (see the module
    docstring). Returns the value in effect and, where it could not be set, why."""
    import ctypes
    import _awscrt
    path = os.path.realpath(_awscrt.__file__)
    offset = elf_symbol_value(path, 'g_aws_channel_max_fragment_size')
    if offset is None:
        return None, f'g_aws_channel_max_fragment_size is not in the symbol table of {path}'
    base = None
    with open('/proc/self/maps') as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and fields[5] == path and int(fields[2], 16) == 0:
                base = int(fields[0].split('-')[0], 16)
                break
    if base is None:
        return None, f'{path} is not mapped in this process'
    cell = ctypes.c_size_t.from_address(base + offset)
    if cell.value != 16 * 1024:
        return cell.value, f'the global holds {cell.value}, not the 16 KiB default: not this build\'s layout, left alone'
    cell.value = size
    return size, None


def strip_ns(tag):
    return tag.rsplit('}', 1)[-1]


def s3_error_text(err, what):
    """'Code: Message (HTTP 404, GetObject)' from a CRT error, S3's XML body when there is one."""
    from awscrt.s3 import S3ResponseError
    if isinstance(err, S3ResponseError):
        status = err.status_code
        code, message = None, None
        if err.body:
            try:
                root = ET.fromstring(err.body)
                for el in root:
                    if strip_ns(el.tag) == 'Code':
                        code = el.text
                    elif strip_ns(el.tag) == 'Message':
                        message = el.text
            except ET.ParseError:
                message = err.body[:200].decode('utf-8', 'replace')
        if code is None:
            # HEAD answers carry no body (the CRT's GET starts with one): name the status.
            code, message = {
                403: ('Forbidden', 'access denied: wrong credentials, or no permission for this key'),
                404: ('NotFound', 'no such key (or bucket)'),
                301: ('PermanentRedirect', 'the bucket is in another region'),
            }.get(status, (f'HTTP{status}', message))
        op = err.operation_name or what
        via = f', {op} of {what}' if op != what else f', {op}'
        return f"{code}: {message or 'no message'} (HTTP {status}{via})"
    name = getattr(err, 'name', type(err).__name__)
    message = getattr(err, 'message', str(err))
    return f"{name}: {message} ({what})"


class Client:
    def __init__(self, args):
        from awscrt.auth import AwsCredentialsProvider
        from awscrt.io import ClientBootstrap, DefaultHostResolver, EventLoopGroup, ClientTlsContext, TlsContextOptions
        from awscrt.s3 import S3Client, S3RequestTlsMode, create_default_s3_signing_config

        self.args = args
        # Before any channel exists: each connection's socket handler takes the size when it is made.
        self.socket_read_size, self.socket_read_problem = (16 * 1024, None)
        if args.socket_read_size > 0:
            self.socket_read_size, self.socket_read_problem = set_socket_read_size(args.socket_read_size)
        if args.endpoint:
            u = urllib.parse.urlsplit(args.endpoint)
            if u.scheme not in ('http', 'https') or not u.hostname:
                raise ValueError(f'endpoint {args.endpoint!r} is not an http(s) URL')
            self.tls = u.scheme == 'https'
            self.host = u.netloc
            self.path_style = args.path_style
        else:
            self.tls = True
            self.host = f's3.{args.region}.amazonaws.com'
            self.path_style = False
        if not self.path_style:
            self.host = f'{args.bucket}.{self.host}'
        elg = EventLoopGroup(args.event_loop_threads) if args.event_loop_threads > 0 else EventLoopGroup()
        bootstrap = ClientBootstrap(elg, DefaultHostResolver(elg))
        key_id = os.environ.get('AWS_ACCESS_KEY_ID')
        secret = os.environ.get('AWS_SECRET_ACCESS_KEY')
        if key_id and secret:
            creds = AwsCredentialsProvider.new_static(key_id, secret, os.environ.get('AWS_SESSION_TOKEN') or None)
        else:
            creds = AwsCredentialsProvider.new_default_chain(bootstrap)
        kwargs = dict(
            bootstrap=bootstrap,
            region=args.region,
            signing_config=create_default_s3_signing_config(region=args.region, credential_provider=creds),
            tls_mode=S3RequestTlsMode.ENABLED if self.tls else S3RequestTlsMode.DISABLED,
            part_size=args.part_size,
            multipart_upload_threshold=args.part_size,
            throughput_target_gbps=args.target_gbps,
            connect_timeout_ms=5000,
        )
        if self.tls:
            kwargs['tls_connection_options'] = ClientTlsContext(TlsContextOptions()).new_connection_options()
        if args.memory_limit > 0:
            kwargs['memory_limit'] = args.memory_limit
        if args.max_connections > 0:
            kwargs['max_active_connections_override'] = args.max_connections
        self.client = S3Client(**kwargs)
        self.out_lock = threading.Lock()

    def config(self):
        a = self.args
        return {
            'endpoint': a.endpoint or f'https://{self.host}', 'path_style': self.path_style, 'region': a.region,
            'part_size': a.part_size, 'target_gbps': a.target_gbps, 'max_connections': a.max_connections,
            'memory_limit': a.memory_limit, 'event_loop_threads': a.event_loop_threads or os.cpu_count(),
            'checksum': a.checksum, 'write_size': a.write_size, 'writers': a.writers,
            'socket_read_size': self.socket_read_size, 'socket_read_problem': self.socket_read_problem,
            'large_blocks': large_blocks(),
        }

    def url_path(self, key='', query=None):
        path = '/' + urllib.parse.quote(key, safe='/-_.~')
        if self.path_style:
            path = '/' + self.args.bucket + path
        if query:
            path += '?' + '&'.join(f"{k}={urllib.parse.quote(str(v), safe='-_.~')}" for k, v in query)
        return path

    def request(self, method, path, op_name, req_type=None, headers=(), **kw):
        """One CRT request, blocking; returns (latency_ns, status, headers, body)."""
        from awscrt.http import HttpHeaders, HttpRequest
        from awscrt.s3 import S3RequestType
        h = HttpHeaders([('Host', self.host), *headers])
        body, resp = [], {}
        done_at = [0]

        def on_headers(status_code, headers, **_):
            resp['status'] = status_code
            resp['headers'] = headers

        def on_body(chunk, offset, **_):
            body.append(bytes(chunk))

        def on_done(error=None, status_code=None, **_):
            done_at[0] = time.perf_counter_ns()

        if req_type is None:
            req_type = S3RequestType.DEFAULT
            kw['operation_name'] = op_name
        if 'recv_filepath' not in kw and 'on_body' not in kw:
            kw['on_body'] = on_body
        t0 = time.perf_counter_ns()
        req = self.client.make_request(type=req_type, request=HttpRequest(method, path, h), on_headers=on_headers, on_done=on_done, **kw)
        req.finished_future.result()  # raises the CRT's error (S3ResponseError for an error answer)
        return done_at[0] - t0, resp.get('status'), dict((k.lower(), v) for k, v in resp.get('headers') or []), b''.join(body)

    def checksum_config(self, upload):
        from awscrt.s3 import S3ChecksumAlgorithm, S3ChecksumConfig, S3ChecksumLocation
        if self.args.checksum == 'none':
            return None
        if upload:
            return S3ChecksumConfig(algorithm=getattr(S3ChecksumAlgorithm, self.args.checksum), location=S3ChecksumLocation.TRAILER)
        return S3ChecksumConfig(validate_response=True)

    def handle(self, req):
        from awscrt.s3 import S3RequestType
        op, key = req.get('op'), req.get('key', '')
        if op == 'put':
            size = int(req['size'])
            ns, _, _, _ = self.request('PUT', self.url_path(key), 'PutObject', S3RequestType.PUT_OBJECT,
                                       headers=[('Content-Length', str(size))], send_filepath=req['path'],
                                       checksum_config=self.checksum_config(True))
            return {'latency_ns': ns, 'bytes': size}
        if op == 'get':
            path = req['path']
            if self.args.write_size <= 0:
                ns, _, _, _ = self.request('GET', self.url_path(key), 'GetObject', S3RequestType.GET_OBJECT,
                                           recv_filepath=path, checksum_config=self.checksum_config(False))
                return {'latency_ns': ns, 'bytes': os.path.getsize(path)}
            return self.get_to_file(key, path)
        if op == 'head':
            ns, _, headers, _ = self.request('HEAD', self.url_path(key), 'HeadObject')
            return {'latency_ns': ns, 'bytes': int(headers.get('content-length', 0))}
        if op == 'delete':
            ns, _, _, _ = self.request('DELETE', self.url_path(key), 'DeleteObject')
            return {'latency_ns': ns, 'bytes': 0}
        if op == 'list':
            prefix = req.get('prefix', key)
            # A listing's latency covers its pages and their parsing (an SDK parses inside its call too).
            entries, token = [], None
            t0 = time.perf_counter_ns()
            while True:
                query = [('list-type', 2)]
                if token:
                    query.append(('continuation-token', token))
                query.append(('prefix', prefix))
                _, _, _, body = self.request('GET', self.url_path('', sorted(query)), 'ListObjectsV2')
                root = ET.fromstring(body)
                token = None
                truncated = False
                for el in root:
                    tag = strip_ns(el.tag)
                    if tag == 'Contents':
                        f = {strip_ns(c.tag): c.text for c in el}
                        k = f.get('Key') or ''
                        entries.append([k[len(prefix):] if k.startswith(prefix) else k, int(f.get('Size') or 0)])
                    elif tag == 'IsTruncated':
                        truncated = el.text == 'true'
                    elif tag == 'NextContinuationToken':
                        token = el.text
                if not (truncated and token):
                    break
            return {'latency_ns': time.perf_counter_ns() - t0, 'bytes': 0, 'entries': entries}
        raise ValueError(f'unknown op {op!r}')

    def get_to_file(self, key, path):
        """GET into `path`: each body chunk (a part, delivered by the CRT in order with its offset)
        written at its offset in pwrite calls of --write-size bytes. awscrt hands the callback each
        part as a bytes object of its own (its binding copies the CRT's buffer), so with --writers N
        the callback only queues it and N threads write the parts in parallel, as s5cmd's goroutines
        do; with 0 the callback writes the part itself before the CRT delivers the next one."""
        from awscrt.s3 import S3RequestType
        t0 = time.perf_counter_ns()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        writer = PartWriter(fd, path, self.args.write_size, self.args.writers)
        try:
            # An exception here fails the CRT request with it (awscrt re-raises it from the future).
            self.request('GET', self.url_path(key), 'GetObject', S3RequestType.GET_OBJECT,
                         on_body=lambda chunk, offset, **_: writer.write(chunk, offset),
                         checksum_config=self.checksum_config(False))
            writer.finish()
            size = os.fstat(fd).st_size
        finally:
            writer.finish(abandon=True)
            os.close(fd)
        return {'latency_ns': time.perf_counter_ns() - t0, 'bytes': size}

    def reply(self, obj):
        line = json.dumps(obj, separators=(',', ':')) + '\n'
        with self.out_lock:
            sys.stdout.write(line)
            sys.stdout.flush()

    def serve(self, req):
        rid = req.get('id')
        try:
            res = self.handle(req)
            self.reply({'id': rid, 'ok': True, **res})
        except Exception as err:  # noqa: BLE001 — every failure is an answer, never a hang
            what = {'put': 'PutObject', 'get': 'GetObject', 'head': 'HeadObject', 'delete': 'DeleteObject', 'list': 'ListObjectsV2'}.get(req.get('op'), str(req.get('op')))
            text = s3_error_text(err, what)
            if not text.startswith(('Forbidden', 'NotFound')) and '(HTTP ' not in text:
                text += f' — endpoint {self.config()["endpoint"]}'  # a transport error: say where it tried
            self.reply({'id': rid, 'ok': False, 'latency_ns': 0, 'bytes': 0, 'error': text})


def pwrite_all(fd, path, chunk, offset, piece):
    """Writes `chunk` at `offset` in pwrite calls of `piece` bytes (no copy: a memoryview; pwrite
    releases the GIL)."""
    view = memoryview(chunk)
    pos, end = 0, len(view)
    while pos < end:
        n = os.pwrite(fd, view[pos:min(pos + piece, end)], offset + pos)
        if n <= 0:
            raise OSError(f'pwrite wrote {n} bytes at offset {offset + pos} of {path}')
        pos += n


class PartWriter:
    """Writes a GET's parts into its file: inline (threads 0), or from `threads` writer threads fed
    by a queue of at most two parts per thread, so the CRT waits (as it does inline) rather than
    the client holding the object in memory."""

    def __init__(self, fd, path, piece, threads):
        self.fd, self.path, self.piece = fd, path, piece
        self.error = None
        self.done = threads == 0
        self.queue = queue.Queue(maxsize=2 * threads) if threads else None
        self.threads = [threading.Thread(target=self.loop, daemon=True) for _ in range(threads)]
        for t in self.threads:
            t.start()

    def write(self, chunk, offset):
        if self.error:
            raise self.error
        if self.queue is None:
            pwrite_all(self.fd, self.path, chunk, offset, self.piece)
        else:
            self.queue.put((chunk, offset))

    def loop(self):
        while True:
            item = self.queue.get()
            if item is None:
                return
            if self.error is None:
                try:
                    pwrite_all(self.fd, self.path, item[0], item[1], self.piece)
                except BaseException as err:  # noqa: BLE001 — reported by finish()
                    self.error = err

    def finish(self, abandon=False):
        """Waits for every queued part to be written; raises the first write error (unless abandoning)."""
        if not self.done:
            self.done = True
            for _ in self.threads:
                self.queue.put(None)
            for t in self.threads:
                t.join()
        if self.error and not abandon:
            raise self.error


def main():
    args = parse_args(sys.argv[1:])
    try:
        version = version_string()
    except ImportError as err:
        print(json.dumps({'ready': False, 'error': f'awscrt is not importable: {err}'}), flush=True)
        return 3
    if args.version:
        print(json.dumps({'version': version}), flush=True)
        return 0
    try:
        client = Client(args)
    except Exception as err:  # noqa: BLE001
        print(json.dumps({'ready': False, 'error': s3_error_text(err, 'client setup')}), flush=True)
        return 2
    client.reply({'ready': True, 'version': version, 'config': client.config()})
    threads = []
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as err:
            client.reply({'id': None, 'ok': False, 'error': f'bad request line: {err}'})
            continue
        t = threading.Thread(target=client.serve, args=(req,), daemon=True)
        t.start()
        threads = [x for x in threads if x.is_alive()] + [t]
    for t in threads:  # stdin closed: finish what is in flight, then exit
        t.join()
    return 0


if __name__ == '__main__':
    sys.exit(main())
