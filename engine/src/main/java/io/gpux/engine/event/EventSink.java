package io.gpux.engine.event;

/**
 * Receives the engine's events, one at a time, on the engine thread. The event is a flyweight reused
 * for later events (one per event type): copy what must outlive the call, and do not modify it (the
 * engine does not clear a flyweight between events, it sets every field of the type each time).
 */
@FunctionalInterface
public interface EventSink
{
    void onEvent(Event event);
}
