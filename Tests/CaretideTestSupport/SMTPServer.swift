import CaretideLocalStack
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's Exim (`exim4-daemon-light`) on loopback, as an operator's relay is: STARTTLS with a certificate of its
/// own, AUTH PLAIN only once TLS is up, and every accepted message delivered to a maildir the test reads. Recipients at
/// `refused.example` are refused with 550, as a relay refuses an address it cannot deliver to. A missing Exim fails
/// the test rather than skipping it (`scripts/install-dependencies` installs it).
///
/// A test gets one through `withRelay`, which stops it when the body ends, whatever the outcome. Exim runs in the
/// foreground (`-bdf`), a child of the test process: the test holds the daemon's own pid, and the daemon stays in the
/// test process's process group, which a runner stopping a stuck run signals. A detached daemon (`-bd`) forks into a
/// session of its own that only its pid file leads to, and outlived every test that did not stop it.
public final class SMTPServer: Sendable {
    public static let username = "caretide"
    public static let password = "relay-secret-for-tests"
    public static let refusedDomain = "refused.example"

    public let port: Int
    public let directory: URL
    /// The server's self-signed certificate (PEM), for the client's `SMTP_CA_FILE`.
    public let certificate: String
    private let daemon: ServiceProcess

    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "exim4 is not installed: run scripts/install-dependencies" }
    }

    public struct NotListening: Error, CustomStringConvertible {
        let log: String
        public var description: String { "the SMTP server did not start: \(log.suffix(2000))" }
    }

    private init(port: Int, directory: URL, daemon: ServiceProcess) {
        self.port = port
        self.directory = directory
        self.certificate = directory.appendingPathComponent("cert.pem").path
        self.daemon = daemon
    }

    /// Starts a relay, runs `body` with it, and stops the relay when `body` ends, whatever the outcome: it returned,
    /// threw (a failed `#require` among them), or the test was cancelled.
    public static func withRelay(_ body: (SMTPServer) async throws -> Void) async throws {
        let relay = try await start()
        do {
            try await body(relay)
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
    }

    private static func start() async throws -> SMTPServer {
        let exim = "/usr/sbin/exim4"
        guard FileManager.default.isExecutableFile(atPath: exim) else { throw Missing() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-smtp-\(UUID().uuidString)")
        for sub in ["spool", "log", "maildir"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try await check(
            Subprocess.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", directory.appendingPathComponent("key.pem").path, "-out", directory.appendingPathComponent("cert.pem").path,
                ]))
        // Debian's Exim never delivers as root: as root, its directories and key go to its own user.
        let user = getuid() == 0 ? "Debian-exim" : String(cString: getpwuid(getuid()).pointee.pw_name)
        if getuid() == 0 {
            try await check(Subprocess.run("/bin/chown", ["-R", "\(user):\(user)", directory.path]))
        }
        let configuration = directory.appendingPathComponent("exim.conf")
        try Data(Self.configuration(directory: directory, user: user).utf8).write(to: configuration)
        // A port found free may be taken before Exim binds it (tests open many connections side by side): Exim then
        // exits at once (`daemon_startup_retries = 0`), and another port is tried.
        var attempt = 1
        while true {
            let port = try FreePort.find()
            // -bdf: the listening daemon, in the foreground (no fork, no session of its own); -oX: its port. No pid
            // file (-oP): the test holds the daemon's pid.
            let daemon = ServiceProcess(
                name: "exim", executable: URL(fileURLWithPath: exim), arguments: ["-C", configuration.path, "-bdf", "-oX", "\(port)"],
                environment: ProcessInfo.processInfo.environment, outputPath: directory.appendingPathComponent("exim.out").path)
            let server = SMTPServer(port: port, directory: directory, daemon: daemon)
            try daemon.start()
            let listening: Bool
            do {
                listening = try await server.listens()
            } catch {
                // Not listening in time, or the test was cancelled: the caller never gets this server to stop it.
                await server.stop()
                throw error
            }
            if listening { return server }
            guard attempt < 3, server.log.contains("Address already in use") else { throw NotListening(log: server.log + server.output) }
            attempt += 1
        }
    }

    /// The messages delivered so far, as stored (headers and body, CRLF turned to LF by Exim's maildir transport).
    public func messages() -> [String] {
        let new = directory.appendingPathComponent("maildir/new")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: new.path)) ?? []
        return names.sorted().compactMap { try? String(contentsOf: new.appendingPathComponent($0), encoding: .utf8) }
    }

    /// Exim's main log: each message received (with the TLS cipher and the authenticated user) and delivered.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("log/mainlog"), encoding: .utf8)) ?? ""
    }

    /// What Exim wrote to its standard output and error (a configuration error, a panic).
    private var output: String {
        (try? String(contentsOf: directory.appendingPathComponent("exim.out"), encoding: .utf8)) ?? ""
    }

    /// Stops the daemon: SIGTERM, then SIGKILL should it not have exited within five seconds. A connection still
    /// open keeps the Exim process that serves it until its client closes it (the services, stopped with their stack).
    private func stop() async {
        await daemon.stop(grace: .seconds(5))
    }

    /// Waits until Exim listens on the port (its main log says so, and a connection is accepted): true; false once it
    /// has exited without (its port was taken). Throws `NotListening` when neither happened within ten seconds.
    private func listens() async throws -> Bool {
        for _ in 0..<100 {
            guard daemon.isRunning else { return false }
            // The log line, not only the connection: a port taken by another listener accepts connections too.
            if log.contains("listening for SMTP on [127.0.0.1]:\(port)"), accepts() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw NotListening(log: log + output)
    }

    private func accepts() -> Bool {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return false }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func check(_ result: Subprocess.Result) throws {
        guard result.status == 0 else { throw NotListening(log: result.output) }
    }

    /// Exim's configuration (the spec's chapter 6 layout): loopback only, no retrying a port it cannot bind, TLS
    /// offered to all, AUTH offered only over TLS, relaying only for the authenticated, one router that accepts every
    /// address into the maildir.
    private static func configuration(directory: URL, user: String) -> String {
        """
        primary_hostname = localhost
        spool_directory = \(directory.path)/spool
        log_file_path = \(directory.path)/log/%slog
        exim_user = \(user)
        exim_group = \(user)
        local_interfaces = 127.0.0.1
        daemon_startup_retries = 0
        tls_advertise_hosts = *
        tls_certificate = \(directory.path)/cert.pem
        tls_privatekey = \(directory.path)/key.pem
        auth_advertise_hosts = ${if eq{$tls_in_cipher}{}{}{*}}
        acl_smtp_rcpt = acl_check_rcpt
        begin acl
        acl_check_rcpt:
          deny message = no such recipient
               domains = \(Self.refusedDomain)
          accept authenticated = *
          deny message = authentication required
        begin routers
        everything:
          driver = accept
          transport = maildir_delivery
        begin transports
        maildir_delivery:
          driver = appendfile
          directory = \(directory.path)/maildir
          maildir_format
          user = \(user)
          group = \(user)
          create_directory
        begin retry
        *   *   F,1m,10s
        begin authenticators
        plain:
          driver = plaintext
          public_name = PLAIN
          server_prompts = :
          server_condition = ${if and {{eq{$auth2}{\(Self.username)}}{eq{$auth3}{\(Self.password)}}}}
          server_set_id = $auth2

        """
    }
}
