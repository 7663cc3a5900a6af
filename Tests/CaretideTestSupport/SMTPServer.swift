import CaretideLocalStack
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's Exim (`exim4-daemon-light`) on loopback, as an operator's relay is: STARTTLS with a certificate of its
/// own, AUTH PLAIN only once TLS is up, and every accepted message delivered to a maildir the test reads. Recipients at
/// `refused.example` are refused with 550, as a relay refuses an address it cannot deliver to. A missing Exim fails
/// the test rather than skipping it (`scripts/install-dependencies` installs it).
public final class SMTPServer: Sendable {
    public static let username = "caretide"
    public static let password = "relay-secret-for-tests"
    public static let refusedDomain = "refused.example"

    public let port: Int
    public let directory: URL
    /// The server's self-signed certificate (PEM), for the client's `SMTP_CA_FILE`.
    public let certificate: String

    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "exim4 is not installed: run scripts/install-dependencies" }
    }

    public struct NotListening: Error, CustomStringConvertible {
        let log: String
        public var description: String { "the SMTP server did not start: \(log.suffix(2000))" }
    }

    private init(port: Int, directory: URL) {
        self.port = port
        self.directory = directory
        self.certificate = directory.appendingPathComponent("cert.pem").path
    }

    public static func start() async throws -> SMTPServer {
        let exim = "/usr/sbin/exim4"
        guard FileManager.default.isExecutableFile(atPath: exim) else { throw Missing() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-smtp-\(UUID().uuidString)")
        for sub in ["spool", "log", "maildir"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let server = SMTPServer(port: try FreePort.find(), directory: directory)
        try await check(
            Subprocess.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", directory.appendingPathComponent("key.pem").path, "-out", server.certificate,
                ]))
        // Debian's Exim never delivers as root: as root, its directories and key go to its own user.
        let user = getuid() == 0 ? "Debian-exim" : String(cString: getpwuid(getuid()).pointee.pw_name)
        if getuid() == 0 {
            try await check(Subprocess.run("/bin/chown", ["-R", "\(user):\(user)", directory.path]))
        }
        let configuration = directory.appendingPathComponent("exim.conf")
        try Data(server.configuration(user: user).utf8).write(to: configuration)
        let pidFile = directory.appendingPathComponent("exim.pid").path
        // -bd: the listening daemon, which detaches; -oX: its port; -oP: where it writes its pid.
        try await check(Subprocess.run(exim, ["-C", configuration.path, "-bd", "-oX", "\(server.port)", "-oP", pidFile]))
        for _ in 0..<100 {
            if server.accepts() { return server }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw NotListening(log: server.log)
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

    public func stop() {
        let pidFile = directory.appendingPathComponent("exim.pid").path
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
            pid > 0
        {
            kill(pid, SIGTERM)
        }
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

    /// Exim's configuration (the spec's chapter 6 layout): loopback only, TLS offered to all, AUTH offered only over
    /// TLS, relaying only for the authenticated, one router that accepts every address into the maildir.
    private func configuration(user: String) -> String {
        """
        primary_hostname = localhost
        spool_directory = \(directory.path)/spool
        log_file_path = \(directory.path)/log/%slog
        exim_user = \(user)
        exim_group = \(user)
        local_interfaces = 127.0.0.1
        tls_advertise_hosts = *
        tls_certificate = \(certificate)
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
