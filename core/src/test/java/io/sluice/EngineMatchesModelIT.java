package io.sluice;

import io.sluice.testing.RedisProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.io.IOException;
import java.util.Arrays;
import java.util.stream.LongStream;

/**
 * The longer random run of {@link EngineMatchesModelTest}: more seeds (random ones unless {@code -Dsluice.seed=N}),
 * longer sequences, and Redis faults on a Redis of its own: a freeze (SIGSTOP) past the deadline while requests
 * arrive, and a restart with empty state.
 */
@Timeout(3600)
class EngineMatchesModelIT {
    static final int SEEDS = 40;
    static final int STEPS = 200;
    private static RedisProcess redisProcess;
    private static RedissonClient redis;

    @BeforeAll
    static void start() {
        redisProcess = RedisProcess.start();
        Config config = new Config();
        config.useSingleServer().setAddress(redisProcess.address());
        redis = Redisson.create(config);
    }

    @AfterAll
    static void stop() {
        redis.shutdown();
        redisProcess.close();
    }

    static LongStream seeds() {
        String chosen = System.getProperty("sluice.seed");
        if (chosen != null) return Arrays.stream(chosen.split(",")).mapToLong(s -> Long.parseLong(s.trim()));
        long first = System.nanoTime() & 0xffff_ffffL;
        return LongStream.range(first, first + Long.getLong("sluice.seeds", SEEDS));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void engineDecidesAsTheModelThroughFaults(long seed) {
        EngineMatchesModelTest.check(redis, EngineScenario.draw(seed, STEPS, true), new Faults());
    }

    /** SIGSTOP and SIGCONT of the Redis process, and its restart without persistence. */
    private static final class Faults implements EngineScenarioRun.FaultInjector {
        @Override
        public void freeze() {
            signal("-STOP");
        }

        @Override
        public void thaw() {
            signal("-CONT");
        }

        @Override
        public void restartEmpty() {
            redisProcess.restart();
        }

        /** Signals the server; the process id is read before a stop (a stopped server answers nothing). */
        private static void signal(String signal) {
            try {
                if (signal.equals("-STOP")) {
                    String info = String.valueOf(redisProcess.command("INFO", "server"));
                    lastPid = info.replaceAll("(?s).*process_id:(\\d+).*", "$1");
                }
                Process kill = new ProcessBuilder("kill", signal, lastPid).inheritIO().start();
                if (kill.waitFor() != 0) throw new IllegalStateException("kill " + signal + " " + lastPid + " failed");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private static String lastPid;
    }
}
