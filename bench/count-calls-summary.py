#!/usr/bin/env python3
"""Summarizes bench/count-netty-calls: per case and program, each side's system calls per transfer, by kind.

Usage: bench/count-calls-summary.py DIR   (DIR/CASE/PROGRAM/{client,server}/trace.TID and DIR/CASE/PROGRAM/run.txt)

Kinds, read from strace's -y -x -s 4 output (one file per thread):
  waits      epoll_wait/epoll_pwait/poll/ppoll calls; "ready" those that returned something
  events     completion events read (read() on an infinibandevent descriptor that returned data)
  rearms     ioctl() calls on a uverbs descriptor: rdma-core sends ibv_req_notify_cq (re-arming a completion queue)
             this way, and also the setup's commands (a connection's queue pair, regions...: some tens per run)
  doorbells  send doorbells (write() of verbs command 28, POST_SEND: rxe rings one per ibv_post_send call)
  eventfd    eventfd reads and writes (one thread waking another's poll)
  futex      futex wake-ups (FUTEX_WAKE) on the threads that touched a verbs or wait descriptor (a JVM's loop also
             wakes its compiler threads this way while it warms up)
  yields     sched_yield calls
  verbs threads  every call counted on the threads that touched a verbs or wait descriptor (with the class loading
             a JVM's loop thread does while it warms up)
  all        every call counted, all threads (a JVM's start and its compiler threads too)
"""
import collections
import pathlib
import re
import sys

LINE = re.compile(r'^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)')
WAITS = {'epoll_wait', 'epoll_pwait', 'epoll_pwait2', 'poll', 'ppoll'}
POST_SEND = 28


def command(args):
    """The verbs command number: the first byte of a write()'s buffer ("\\x1c\\x00...")."""
    match = re.search(r'"\\x([0-9a-f]{2})', args)
    return int(match.group(1), 16) if match else None


def count_side(side_dir):
    total = collections.Counter()
    for trace in sorted(side_dir.glob('trace.*')):
        thread = collections.Counter()
        for line in trace.read_text(errors='replace').splitlines():
            match = LINE.match(line)
            if not match:
                continue
            name, args, result = match.groups()
            result = int(result) if result != '?' else -1
            fd = args.split(',', 1)[0]
            thread['all'] += 1
            if name in WAITS:
                thread['waits'] += 1
                thread['ready'] += result > 0
                thread['verbs_thread'] = 1
            elif name == 'read' and 'infinibandevent' in fd:
                thread['events'] += result > 0
                thread['verbs_thread'] = 1
            elif name == 'write' and 'uverbs' in fd:
                thread['verbs_thread'] = 1
                thread['doorbells'] += command(args) == POST_SEND
            elif name == 'ioctl' and 'uverbs' in fd:
                thread['verbs_thread'] = 1
                thread['rearms'] += 1
            elif name in ('read', 'write') and 'eventfd' in fd:
                thread['eventfd'] += 1
            elif name == 'futex' and 'FUTEX_WAKE' in args:
                thread['futex_all'] += 1
            elif name == 'sched_yield':
                thread['yields'] += 1
        if thread['verbs_thread']:
            thread['futex'] = thread['futex_all']
            thread['verbs threads'] = thread['all']
        del thread['verbs_thread']
        total.update(thread)
    return total


def main(root):
    kinds = ['waits', 'ready', 'events', 'rearms', 'doorbells', 'eventfd', 'futex', 'yields', 'verbs threads', 'all']
    print('| case | program | transfers | packets/transfer | side | ' + ' | '.join(kinds) + ' |')
    print('|---|---|---|---|---|' + '---|' * len(kinds))
    for run in sorted(pathlib.Path(root).glob('*/*/run.txt')):
        info = dict(field.split('=', 1) for field in run.read_text().split())
        transfers = int(info['transfers'])
        case = f"-S {info['size']} -C {info['count']} -I {info['iterations']}"
        for side in ('client', 'server'):
            counts = count_side(run.parent / side)
            cells = ' | '.join(f'{counts[k] / transfers:.2f}' for k in kinds)
            print(f"| {case} | {info['program']} | {transfers} | {int(info['packets']) / transfers:.2f} | {side} | {cells} |")


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
