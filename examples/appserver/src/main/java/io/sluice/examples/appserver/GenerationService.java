package io.sluice.examples.appserver;

import io.sluice.cdi.Limited;
import io.sluice.examples.war.Workload;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.servlet.ServletContext;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Generates images, at most 2 at once for everyone (rule {@code generations}), each taking its hold time
 * or until the probe releases it: the application's {@link Workload} counts them.
 */
@ApplicationScoped
@Limited("generations")
public class GenerationService {
    private static final long GRACE_MILLIS = 5_000;

    @Inject
    ServletContext context;
    private Workload workload;

    /**
     * On first use, in a request: a call admitted later runs on another thread, where the container's
     * {@code ServletContext} bean (backed by the request) is not available.
     */
    @PostConstruct
    void findWorkload() {
        workload = Workload.of(context);
    }

    /** Holds the calling thread for the generation. */
    public String generate(Duration hold) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            workload.start(hold).get(hold.toMillis() + GRACE_MILLIS, TimeUnit.MILLISECONDS);
            return "report ready\n";
        } finally {
            workload.finish();
        }
    }

    /** Holds no thread: the stage completes when the generation does (the permit is held until then). */
    public CompletionStage<String> generateLater(Duration hold) {
        return workload.start(hold).handle((done, failure) -> {
            workload.finish();
            return "report ready\n";
        });
    }
}
