package io.sluice.examples.spring;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Notes need a signed-in user (HTTP Basic, two demo users); everything else is open. Sluice's filter runs just after
 * this chain, so the rule "notes" (key {@code user}) counts per user.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {
    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers("/api/notes").authenticated()
                        .anyRequest().permitAll())
                .httpBasic(basic -> { })
                .build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("ada").password("{noop}ada-password").roles("USER").build(),
                User.withUsername("grace").password("{noop}grace-password").roles("USER").build());
    }
}
