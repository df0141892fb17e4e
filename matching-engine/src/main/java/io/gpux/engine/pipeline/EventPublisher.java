package io.gpux.engine.pipeline;

import io.gpux.engine.event.Event;

/**
 * Receives every event after it is journaled, on the output thread, in engine order. The event is a
 * flyweight: copy what must outlive the call. Must not block for long: it holds up every publisher.
 */
@FunctionalInterface
public interface EventPublisher
{
    void onEvent(Event event);
}
