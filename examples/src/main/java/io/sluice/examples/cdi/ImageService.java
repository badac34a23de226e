package io.sluice.examples.cdi;

import io.sluice.cdi.LimitKey;
import io.sluice.cdi.Limited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.UUID;

/**
 * A slow, expensive "image generation", limited by two rules of {@code sluice-cdi-example.properties}:
 * {@code image-quota}, 5 images an hour per user (the {@link LimitKey} argument), and {@code images}, at most
 * 3 generations in flight for everyone (keyed {@code global}, so the {@code @LimitKey} does not apply to it).
 * A rejected call throws {@link io.sluice.LimitExceededException} before the method body runs.
 */
@ApplicationScoped
public class ImageService {
    private Duration delay;

    /** For the container's client proxy. */
    protected ImageService() {
    }

    @Inject
    public ImageService(CdiExampleApp.Settings settings) {
        this.delay = settings.imageDelay();
    }

    /** Generates an image for {@code user} (null: no user, rejected by {@code image-quota}); returns its id. */
    @Limited({"image-quota", "images"})
    public String generate(@LimitKey String user, String prompt) throws InterruptedException {
        Thread.sleep(delay.toMillis());
        return "img-" + UUID.randomUUID();
    }
}
