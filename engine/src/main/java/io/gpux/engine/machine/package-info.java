/**
 * Machines and their measured reliability. The rules that change them are in {@code io.gpux.engine}:
 * {@code MachineMonitor} (heartbeats, offline, reliability) and {@code Admin} (registration).
 */
package io.gpux.engine.machine;
