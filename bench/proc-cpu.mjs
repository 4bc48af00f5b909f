// The CPU time a process has used, for the benches that report CPU per request or per start.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * CPU seconds (user + system) process `pid` has used so far, from /proc/PID/stat: fields 14 and 15 (utime, stime) in
 * clock ticks. The name field may hold spaces, so the line is split after its closing parenthesis.
 */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
