package io.gpux.engine.event;

/**
 * Receives the engine's events, one at a time, on the engine thread. The event is a flyweight reused
 * for the next event: copy what must outlive the call.
 */
@FunctionalInterface
public interface EventSink
{
    void onEvent(Event event);
}
