/**
 * Leases and the per-market index of preemptible leases in victim order. The rules that change them are
 * in {@code io.gpux.engine}: {@code LeaseLifecycle} (start, settlement, notices, end) and
 * {@code Preemptor} (which leases a bid takes).
 */
package io.gpux.engine.lease;
