/**
 * The engine's timers: an indexed binary heap of due times. {@code LeaseLifecycle} and
 * {@code MachineMonitor} in {@code io.gpux.engine} schedule and fire them.
 */
package io.gpux.engine.timer;
