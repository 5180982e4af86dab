import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * Creates (or updates) SCRAM-SHA-512 users of a running broker through the Admin API
 * (AlterUserScramCredentials; kafkajs has no such call), for libs/testing's startKafka and the
 * local stack. Every secret comes on standard input, never as an argument (which `ps` shows) or in
 * a file: the first line is the super user's "name password", who authenticates with PLAIN (SCRAM
 * cannot bootstrap itself; the broker gives PLAIN to the super user alone, and a controller does
 * not serve this call), and each further line "name password" is a user to create. The only
 * argument is the brokers' host:port list. Run with the broker's jars on the classpath:
 * `java -cp 'libs/*' CreateScramUsers.java 127.0.0.1:<port> < users`. Retries until the broker
 * answers (it may still be starting), for up to 60 s.
 */
public final class CreateScramUsers {
  private static final int ITERATIONS = 4096;

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: CreateScramUsers <broker host:port,...> < users (first line: the super user)");
      System.exit(2);
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String[] admin = pair(in.readLine());
    List<UserScramCredentialAlteration> users = new ArrayList<>();
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.isBlank()) continue;
      String[] user = pair(line);
      users.add(new UserScramCredentialUpsertion(
          user[0], new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, ITERATIONS), user[1]));
    }

    Properties config = new Properties();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    config.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    config.put("sasl.mechanism", "PLAIN");
    config.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + admin[0] + "\" password=\"" + admin[1] + "\";");
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin client = Admin.create(config)) {
      for (;;) {
        try {
          client.alterUserScramCredentials(users).all().get(15, TimeUnit.SECONDS);
          System.out.println("created " + users.size() + " SCRAM-SHA-512 users");
          return;
        } catch (ExecutionException | java.util.concurrent.TimeoutException error) {
          if (System.nanoTime() > deadline) throw error;
          Thread.sleep(250);
        }
      }
    }
  }

  /** "name password": names and passwords are letters, digits, '.', '_' and '-' (libs/testing checks). */
  private static String[] pair(String line) {
    String[] parts = line == null ? new String[0] : line.trim().split(" ");
    if (parts.length != 2) {
      System.err.println("each line must be \"name password\"");
      System.exit(2);
    }
    return parts;
  }
}
