package io.gpux.client.cli;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The --json rules' checker rejects each kind of outlier, so that the guard over the commands is not vacuous. */
class JsonRulesTest
{
    @Test
    void acceptsALineThatFollowsTheRules()
    {
        JsonRules.check("{\"type\":\"event\",\"seq\":3,\"time_ms\":1764480000000,\"time_at\":\"2025-11-30T05:20:00.000Z\","
            + "\"kind\":\"FILL\",\"order_id\":7,\"lease_id\":2,\"gpus\":4,\"price\":\"2.5000\",\"hold\":\"1.020000\","
            + "\"fills\":[{\"machine_id\":1,\"price\":\"2.0000\"}],\"prepaid_left_ms\":0}");
    }

    @Test
    void rejectsEachOutlier()
    {
        for (final String line : List.of(
            "{\"type\":\"event\",\"kind\":\"FILL\",\"preempts_lease_id\":0}",
            "{\"type\":\"event\",\"orderId\":7}",
            "{\"type\":\"fill\",\"price\":2.5}",
            "{\"type\":\"fill\",\"price\":\"2.5\"}",
            "{\"type\":\"account\",\"balance\":\"1.02\"}",
            "{\"type\":\"account\",\"balance\":1020000}",
            "{\"type\":\"offer\",\"region\":\"\"}",
            "{\"type\":\"offer\",\"region\":null}",
            "{\"type\":\"offer\",\"telemetry_age_ms\":-1}",
            "{\"type\":\"offer\",\"vram_gb\":\"80\"}",
            "{\"type\":\"lease\",\"ends_at\":\"2025-11-30T05:20:00.000Z\"}",
            "{\"type\":\"lease\",\"ends_ms\":1764480000000,\"ends_at\":\"2025-11-30T05:20:00Z\"}",
            "{\"type\":\"book\",\"bids\":[{\"price\":\"2.0000\",\"gpus\":1.5}]}",
            "{\"type\":\"book\",\"bids\":[{\"price\":\"2.00\",\"gpus\":1}]}",
            "{\"kind\":\"FILL\"}"))
        {
            final AssertionError e = assertThrows(AssertionError.class, () -> JsonRules.check(line), line);
            assertTrue(e.getMessage().endsWith(line), e.getMessage());
        }
    }
}
