package io.sluice.benchmarks.wrk;

import io.sluice.benchmarks.NaiveRateLimitFilter;
import io.sluice.filter.SluiceFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The wrk benchmark's pure parts: reading wrk's line, charging profile samples, the web applications it deploys. */
class WrkPartsTest {
    @Test
    void readsTheLineTheLuaScriptPrints() {
        Wrk.Result r = Wrk.parse("Running 2s test\nsluice-wrk requests=12000 duration_us=2000000 connect=0 read=1 write=0 "
                + "status=3 timeout=2 p50_us=800 p90_us=1500 p99_us=4200\n", List.of("wrk"));
        assertThat(r.requests()).isEqualTo(12_000);
        assertThat(r.perSecond()).isEqualTo(6_000.0);
        assertThat(r.non2xx()).isEqualTo(3);
        assertThat(r.socketErrors()).isEqualTo(3);
        assertThat(r.p50Micros()).isEqualTo(800);
        assertThat(r.p99Micros()).isEqualTo(4_200);
    }

    @Test
    void aSampleIsChargedToTheInnermostKnownLibraryElseToItsThread() {
        String request = "[http-nio-127.0.0.1-8080-exec-3 tid=77];java/lang/Thread.run;org/apache/tomcat/util/threads/TaskThread$WrappingRunnable.run";
        assertThat(Profiler.part((request + ";io/sluice/filter/SluiceFilter.doFilter;java/util/concurrent/CompletableFuture.join;"
                + "java/util/concurrent/locks/LockSupport.park;futex_wait_[k]").split(";"))).isEqualTo(Profiler.Part.FILTER);
        assertThat(Profiler.part((request + ";io/sluice/filter/SluiceFilter.doFilter;org/apache/catalina/core/ApplicationFilterChain.doFilter;"
                + "io/sluice/benchmarks/Hello.doGet;java/lang/String.getBytes").split(";"))).isEqualTo(Profiler.Part.CONTAINER);
        assertThat(Profiler.part((request + ";io/sluice/benchmarks/NaiveRateLimitFilter.doFilter;org/redisson/RedissonRateLimiter.tryAcquire;"
                + "io/netty/channel/AbstractChannel.writeAndFlush;__sys_sendto_[k]").split(";"))).isEqualTo(Profiler.Part.CLIENT);
        assertThat(Profiler.part("[redisson-netty-1-4 tid=40];io/netty/util/concurrent/SingleThreadEventExecutor$4.run;epoll_wait".split(";")))
                .isEqualTo(Profiler.Part.CLIENT);
        assertThat(Profiler.part("[GC Thread#0 tid=9];GCTaskThread::run".split(";"))).isEqualTo(Profiler.Part.JVM);
        assertThat(Profiler.part("[C2 CompilerThread0 tid=12];C2Compiler::compile_method".split(";"))).isEqualTo(Profiler.Part.JVM);
    }

    @Test
    void sharesAddUpToOne(@TempDir Path dir) throws IOException {
        Path collapsed = dir.resolve("p.collapsed");
        Files.writeString(collapsed, """
                [http-nio-1-exec-1 tid=1];org/apache/coyote/AbstractProtocol.process;io/sluice/filter/SluiceFilter.doFilter 3
                [redisson-netty-1-1 tid=2];io/netty/channel/nio/NioEventLoop.run 5
                [GC Thread#0 tid=3];GCTaskThread::run 2
                """);
        Map<Profiler.Part, Double> shares = Profiler.breakdown(collapsed);
        assertThat(shares.get(Profiler.Part.FILTER)).isEqualTo(0.3, within(1e-9));
        assertThat(shares.get(Profiler.Part.CLIENT)).isEqualTo(0.5, within(1e-9));
        assertThat(shares.get(Profiler.Part.JVM)).isEqualTo(0.2, within(1e-9));
        assertThat(shares.values().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(1.0, within(1e-9));
        assertThat(Profiler.hotSpots(collapsed).get("Sluice request view (ServletRequestView)")).isZero();
    }

    @Test
    void theWebApplicationsGuardHelloAsTheScenarioSays() {
        String redis = "redis://127.0.0.1:6379";
        assertThat(Scenario.NONE.webXml(redis, null)).doesNotContain("<filter>").contains("io.sluice.benchmarks.Hello");
        assertThat(Scenario.HAND_WRITTEN.webXml(redis, null)).contains(NaiveRateLimitFilter.class.getName())
                .contains("<param-name>header</param-name><param-value>X-Client</param-value>")
                .contains("<param-name>headers</param-name><param-value>true</param-value>");
        // The simplest filter users write: one tryAcquire, no headers.
        assertThat(Scenario.ONE_ROUND_TRIP.webXml(redis, null)).contains(NaiveRateLimitFilter.class.getName())
                .contains("<param-name>headers</param-name><param-value>false</param-value>");
        assertThat(Scenario.TOKEN_BUCKET.webXml(redis, null)).contains(SluiceFilter.class.getName()).doesNotContain("init-param");
        assertThat(Scenario.TOKEN_BUCKET.sluiceProperties(redis, null)).contains("sluice.rules.clients.paths=/*",
                "sluice.rules.clients.key=header:X-Client", "sluice.rules.clients.rate=1000000/10s",
                "sluice.rules.clients.algorithm=token-bucket", "sluice.headers=all", "sluice.redis.address=" + redis,
                "sluice.redis.transport=nio")
                .doesNotContain("backend-timeout");
        assertThat(Scenario.SLIDING_LOG.filterParameters(redis, "5s")).containsEntry("sluice.backend-timeout", "5s")
                .containsEntry("sluice.rules.clients.algorithm", "sliding-log").doesNotContainKey("sluice.rules.clients.prefetch");
        assertThat(Scenario.SLIDING_LOG_OFF.filterParameters(redis, null)).containsEntry("sluice.rules.clients.prefetch", "off");
        assertThat(Scenario.SLIDING_LOG.filterParameters(redis, null)).as("the default: auto").doesNotContainKey("sluice.rules.clients.prefetch");
        assertThat(Scenario.TOKEN_BUCKET_PREFETCH.filterParameters(redis, null)).containsEntry("sluice.rules.clients.prefetch", "100")
                .containsEntry("sluice.rules.clients.algorithm", "token-bucket");
        assertThat(Scenario.parse(" sluice-sliding-log-prefetch")).isEqualTo(Scenario.SLIDING_LOG_PREFETCH);
    }
}
