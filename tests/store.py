#!/usr/bin/env python3
"""The shared session store (--store postgres://, session/remote.h) through
the CLI, with two state directories standing for two servers' caches: what
a commit carries (variables, files, directories, symlinks, deletions, a
large file), caches that went stale or were tampered with, fork, checkpoint,
restore, rm, list, info, prune, a publish the database refuses, damaged
rows, and bad URLs. PostgreSQL comes from packaging/deploy/pg.sh in a temporary
directory. Prints "ok N - what" / "not ok N - what" and "N passed, N failed".

usage: store.py WASMBOX
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import check, finish  # noqa: E402


W = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
PG = os.path.join(HERE, '..', 'packaging', 'deploy', 'pg.sh')
DIR = tempfile.mkdtemp(prefix='wasmbox-store-')
PORT = 15400 + os.getpid() % 1000
URL = None



def wb(home, *args, store=None, code=None):
    env = dict(os.environ, WASMBOX_HOME=os.path.join(DIR, home), WASMBOX_STORE=URL if store is None else store)
    p = subprocess.run([W] + list(args), input=code, capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def run(home, sid, code):
    rc, out, err = wb(home, 'run', '--session', sid, '--json', '-c', code)
    try:
        return json.loads(out)
    except ValueError:
        return {'status': 'none', 'rc': rc, 'stderr': err}


def psql(sql):
    bin_ = sorted(d for d in os.listdir('/usr/lib/postgresql'))[-1]
    cmd = ['/usr/lib/postgresql/%s/bin/psql' % bin_, '-h', os.path.join(DIR, 'pg'), '-p', str(PORT), '-U', 'wasmbox',
           '-d', 'wasmbox', '-qAtc', sql]
    if os.getuid() == 0:
        cmd = ['runuser', '-u', 'postgres', '--'] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode or p.stderr:
        print("    psql: %s" % p.stderr.strip()[:300])
    return p.stdout.strip()


def main():
    global URL
    p = subprocess.run(['bash', PG, 'start', DIR, str(PORT)], capture_output=True, text=True, timeout=120)
    URL = p.stdout.strip()
    check('a PostgreSQL for the test (%s)' % URL, p.returncode == 0 and URL.startswith('postgres://'))
    if p.returncode:
        print(p.stderr)
        return

    # bad stores: clear errors, never a session
    rc, out, err = wb('a', 'session', 'new', store='mysql://localhost/x')
    check('a store URL that is not postgres:// is refused, naming it', rc != 0 and 'mysql://localhost/x' in err)
    rc, out, err = wb('a', 'session', 'new', store='postgres://wasmbox@127.0.0.1:1/none')
    check('an unreachable database: a clear error (%s)' % err.strip()[:100],
          rc != 0 and 'session store: cannot connect' in err)
    rc, out, err = wb('a', 'run', '-c', 'print(1)', store='postgres://wasmbox@127.0.0.1:1/none')
    check('... while a stateless call needs no store and runs', rc == 0 and out == '1\n')

    # state goes from one cache to the other
    rc, sid, err = wb('a', 'session', 'new')
    sid = sid.strip()
    check('a session made in the store', rc == 0 and sid.startswith('s'))
    r = run('a', sid, '\n'.join([
        'import os',
        'x = 41',
        'os.makedirs("/app/d/e", exist_ok=True)',
        'open("/app/d/e/f.txt", "w").write("deep")',
        'open("/app/gone.txt", "w").write("soon")',
        'open("/app/big.bin", "wb").write(bytes(range(256)) * 20000)',
        'os.symlink("d/e/f.txt", "/app/link")',
        'os.makedirs("/app/empty")']))
    check('a first call commits (%s)' % r.get('error_message'), r['status'] == 'ok')
    r = run('b', sid, '\n'.join([
        'import os, hashlib',
        'x += 1',
        'print(x, open("/app/d/e/f.txt").read(), os.readlink("/app/link"), open("/app/link").read(),',
        '      os.path.isdir("/app/empty"), hashlib.sha256(open("/app/big.bin", "rb").read()).hexdigest()[:12])',
        'os.remove("/app/gone.txt")',
        'os.rmdir("/app/empty")',
        'open("/app/d/e/f.txt", "w").write("changed")']))
    import hashlib
    big = hashlib.sha256(bytes(range(256)) * 20000).hexdigest()[:12]
    check('another cache sees variables, nested files, a symlink, an empty directory, 5 MB intact (%s)'
          % r.get('stdout', r).strip(), r['status'] == 'ok' and r['stdout'] == '42 deep d/e/f.txt deep True %s\n' % big)
    r = run('a', sid, 'import os\nprint(x, sorted(os.listdir("/app")), open("/app/d/e/f.txt").read())')
    check('the first cache, stale, is brought up to date: deletions and changes too (%s)' % r.get('stdout', r),
          r['status'] == 'ok' and r['stdout'] == "42 ['big.bin', 'd', 'link'] changed\n")
    rows = psql("SELECT count(*) FROM wasmbox_logs WHERE owner = '%s'" % sid)
    check('the page log is kept as deltas, one row per commit (%s rows after 3 commits)' % rows,
          rows.isdigit() and 1 <= int(rows) <= 3)

    # a cache tampered with is not trusted
    f = os.path.join(DIR, 'a', 'sessions', sid, 'ws-0', 'd', 'e', 'f.txt')
    ws = [d for d in os.listdir(os.path.join(DIR, 'a', 'sessions', sid)) if d.startswith('ws-')]
    f = os.path.join(DIR, 'a', 'sessions', sid, ws[0], 'd', 'e', 'f.txt')
    with open(f, 'w') as fh:
        fh.write('tampered behind the store')
    r = run('a', sid, 'print(open("/app/d/e/f.txt").read())')
    check('a cached file changed outside a call is replaced by the store\'s (%s)' % r.get('stdout', r).strip(),
          r['status'] == 'ok' and r['stdout'] == 'changed\n')
    os.remove(os.path.join(DIR, 'a', 'sessions', sid, 'stored'))
    r = run('a', sid, 'print(x)')
    check('a cache that lost its record of the store\'s version reloads whole', r['status'] == 'ok' and
          r['stdout'] == '42\n')
    # the record is written without a flush: after a crash of the machine
    # it may be damaged (zeros) or an older one; either reloads
    stored = os.path.join(DIR, 'a', 'sessions', sid, 'stored')
    size = os.path.getsize(stored)
    with open(stored, 'wb') as fh:
        fh.write(b'\0' * size)
    r = run('a', sid, 'print(x)')
    check('a cache whose record of the store\'s version is zeros reloads whole', r['status'] == 'ok' and
          r['stdout'] == '42\n')
    with open(stored, 'rb') as fh:
        older = fh.read()
    r = run('a', sid, 'x = 43')
    with open(stored, 'wb') as fh:
        fh.write(older)
    r = run('a', sid, 'print(x)')
    check('a cache whose record is older than its files takes the store\'s state (%s)' % r.get('stdout', r),
          r['status'] == 'ok' and r['stdout'] == '43\n')
    r = run('a', sid, 'x = 42')

    # a call that fails is rolled back here and leaves the store alone
    rc, out, err = wb('a', 'run', '--session', sid, '--timeout', '1', '--json', '-c',
                      'x = -5\nopen("/app/half.txt", "w").write("half")\nwhile True: pass')
    r = run('b', sid, 'import os\nprint(x, os.path.exists("/app/half.txt"))')
    check('a call that times out after writing a file: nothing of it reaches the store (%s)'
          % r.get('stdout', r).strip(), '"timeout"' in out and r['status'] == 'ok' and r['stdout'] == '42 False\n')

    # file tools through the store
    rc, out, err = wb('b', 'session', 'info', sid)
    check('info comes from the store', rc == 0 and sid in out)

    # a publish the database refuses: the call says so, nothing of it is kept
    psql("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the "
         "test'; END $$; CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON wasmbox_files FOR EACH ROW EXECUTE "
         "FUNCTION refuse()")
    r = run('b', sid, 'x = 1000\nopen("/app/new.txt", "w").write("n")')
    psql('DROP TRIGGER refuse ON wasmbox_files')
    check('a commit the store refuses: status error, SessionStoreError, rolled back (%s)' % r.get('error', {}),
          r['status'] == 'error' and (r.get('error') or {}).get('type') == 'SessionStoreError' and
          'refused by the test' in (r.get('error') or {}).get('message', '') and r.get('session_rolled_back'))
    r = run('b', sid, 'import os\nprint(x, os.path.exists("/app/new.txt"))')
    check('... and the next call, same cache, sees the last commit (%s)' % r.get('stdout', r).strip(),
          r['status'] == 'ok' and r['stdout'] == '42 False\n')

    # fork, checkpoint, restore
    rc, fid, _ = wb('a', 'session', 'fork', sid)
    fid = fid.strip()
    rc2, cid, _ = wb('b', 'session', 'checkpoint', sid)
    cid = cid.strip()
    run('a', sid, 'x = -1\nopen("/app/after.txt", "w").write("a")')
    r1 = run('b', fid, 'import os\nprint(x, sorted(os.listdir("/app")))')
    rc3, _, err3 = wb('b', 'session', 'restore', sid, cid)
    r2 = run('a', sid, 'import os\nprint(x, sorted(os.listdir("/app")))')
    check('fork and checkpoint in one cache, used and restored from the other (%s / %s)'
          % (r1.get('stdout', r1), r2.get('stdout', r2)),
          rc == rc2 == rc3 == 0 and r1['stdout'] == "42 ['big.bin', 'd', 'link']\n" and
          r2['stdout'] == "42 ['big.bin', 'd', 'link']\n")
    rc, _, err = wb('a', 'session', 'restore', sid, 'cnothing')
    check('restore of a checkpoint the store does not have: usage error', rc == 2 and 'no checkpoint' in err)
    rc, out, _ = wb('a', 'session', 'list')
    check('list shows both sessions from either cache', rc == 0 and sid in out and fid in out)

    # damaged rows are refused, not loaded
    psql("UPDATE wasmbox_sessions SET head = '\\x00'::bytea WHERE id = '%s'" % fid)
    r = run('b', fid, 'print(1)')
    check('a damaged HEAD in the store: a clear error (%s)' % json.dumps(r)[:100],
          r.get('status') != 'ok' and 'damaged HEAD' in json.dumps(r))

    # a row's meta is data: a host path in it is refused (it would be mounted
    # into the sandbox), and so is a mount name this server does not have
    hexs = lambda t: t.encode().hex()
    for line, want in (('mount %s %s' % (hexs('/etc'), hexs('/hostetc')), 'names a host directory'),
                       ('mount_name %s %s' % (hexs('nosuch'), hexs('/data')), "mounts 'nosuch'")):
        mid = wb('a', 'session', 'new')[1].strip()
        psql("UPDATE wasmbox_sessions SET meta = meta || convert_to('%s\n', 'UTF8') WHERE id = '%s'" % (line, mid))
        r = run('b', mid, 'import os\nprint(os.listdir("/hostetc"))')
        check('a stored meta with %s: refused, nothing mounted (%s)' % (line.split()[0], json.dumps(r)[:120]),
              r.get('status') != 'ok' and want in json.dumps(r) and 'passwd' not in json.dumps(r))
    rc, _, err = wb('a', 'session', 'new', '--mount', '/usr/share/doc:/doc')
    check('a session in the store with a mount no name covers: refused, saying why (%s)' % err.strip()[:120],
          rc == 2 and 'named mounts' in err)

    # rows that would lead a write out of the workspace are refused
    outside = tempfile.mkdtemp(prefix='wasmbox-store-outside-')
    for rows, what in (("('%s', convert_to('../escaped', 'UTF8'), 'f', '\\x78', sha256('\\x78'))", '".." in a path'),
                       ("('%s', convert_to('ln', 'UTF8'), 'l', convert_to('%s', 'UTF8'), sha256('\\x00')), "
                        "('%s', convert_to('ln/escaped', 'UTF8'), 'f', '\\x78', sha256('\\x78'))",
                        'a symlink out, then a file below it')):
        fid2 = wb('a', 'session', 'new')[1].strip()
        run('a', fid2, 'x = 1')
        ins = rows % ((fid2, outside, fid2) if 'ln' in rows else (fid2,))
        psql("INSERT INTO wasmbox_files VALUES %s; UPDATE wasmbox_sessions SET version = version + 1 WHERE id = '%s'"
             % (ins, fid2))
        r = run('b', fid2, 'print(x)')
        check('a store row with %s: the call fails clearly, nothing written outside (%s)'
              % (what, json.dumps(r)[:90]), r.get('status') != 'ok' and os.listdir(outside) == [] and
              not os.path.exists(os.path.join(DIR, 'b', 'sessions', 'escaped')))
    shutil.rmtree(outside, ignore_errors=True)

    # rm in one cache ends the session in the other
    rc, _, _ = wb('b', 'session', 'rm', sid)
    r = run('a', sid, 'print(x)')
    check('rm through one cache: the other says there is no such session, and drops its copy',
          rc == 0 and 'no session' in json.dumps(r) and not os.path.exists(os.path.join(DIR, 'a', 'sessions', sid)))
    left = psql("SELECT (SELECT count(*) FROM wasmbox_logs WHERE owner LIKE '%s%%') + "
                "(SELECT count(*) FROM wasmbox_files WHERE owner LIKE '%s%%') + "
                "(SELECT count(*) FROM wasmbox_checkpoints WHERE session = '%s')" % (sid, sid, sid))
    check('... and nothing of it, checkpoints included, is left in the store', left == '0')

    # prune: past their TTL, sessions leave the store
    rc, tid, _ = wb('a', 'session', 'new', '--ttl', '1')
    tid = tid.strip()
    psql("UPDATE wasmbox_sessions SET last_used = last_used - 10 WHERE id = '%s'" % tid)
    rc, out, _ = wb('b', 'session', 'prune')
    rc2, out2, _ = wb('a', 'session', 'list')
    check('prune removes a session idle past its TTL from the store', rc == 0 and tid not in out2)

    # the library's session suite, the same tests as with the local backend (session/backend.h), against
    # this store: tests/test_sessions.c with WASMBOX_TEST_STORE (make test-cluster builds it beside WASMBOX)
    t = os.path.join(os.path.dirname(W), 'tests', 'test_sessions')
    p = subprocess.run([t], capture_output=True, text=True, timeout=1800, env=dict(os.environ, WASMBOX_TEST_STORE=URL))
    check('the session suite (test_sessions) passes against the PostgreSQL backend too',
          p.returncode == 0 and 'PASSED' in p.stderr and 'FAILED' not in p.stdout + p.stderr)
    if p.returncode:
        print(p.stdout[-3000:], p.stderr[-2000:])
        print_pg_log()


def print_pg_log():
    """The server's own account (a PANIC, a full disk) of a failure the clients only see as refusals."""
    try:
        with open(os.path.join(DIR, 'pg', 'log'), errors='replace') as f:
            lines = f.readlines()
    except OSError as e:
        print('(no PostgreSQL log: %s)' % e)
        return
    print('PostgreSQL log, its last %d lines:' % min(len(lines), 40))
    print(''.join(lines[-40:]), end='')


try:
    main()
finally:
    subprocess.run(['bash', PG, 'stop', DIR], capture_output=True, timeout=60)
    shutil.rmtree(DIR, ignore_errors=True)
finish()
