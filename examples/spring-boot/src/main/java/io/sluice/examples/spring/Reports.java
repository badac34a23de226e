package io.sluice.examples.spring;

import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Slow reports, counting how many are rendered at once (the rule "reports" allows two). */
@Service
public class Reports {
    /** How long a report takes. */
    static final Duration RENDERING = Duration.ofMillis(200);

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private volatile Duration rendering = RENDERING;

    String render(String name) throws InterruptedException {
        peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try {
            Thread.sleep(rendering.toMillis());
            return "report " + name;
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** The most reports rendered at once so far. */
    public int peak() {
        return peak.get();
    }

    /** Makes reports take this long from now on (tests hold them open). */
    public void renderFor(Duration duration) {
        this.rendering = duration;
    }
}
