package io.gpux.client.agent.workload;

/**
 * What a workload finds in its {@code GPUX_NOTICE_FILE} when its lease is about to end early, as JSON:
 * <pre>
 * {"leaseId":7,"reason":"owner reclaims the machine","noticedAtMs":1767225600000,
 *  "effectiveAtMs":1767225630000,"secondsLeft":30}
 * </pre>
 *
 * @param leaseId       the lease.
 * @param reason        why the lease ends, in words.
 * @param noticedAtMs   when the agent heard of it, epoch milliseconds.
 * @param effectiveAtMs when the workload is killed, epoch milliseconds.
 * @param secondsLeft   whole seconds from the notice to the kill, rounded down.
 */
public record Notice(long leaseId, String reason, long noticedAtMs, long effectiveAtMs, long secondsLeft)
{
}
