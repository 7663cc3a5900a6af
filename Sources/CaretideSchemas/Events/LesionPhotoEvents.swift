/// Where on the body a skin photo was taken: a fixed list, coarse enough that a patient picks the same site again
/// months later, fine enough that two photos of one site show the same moles. Paired sites take a side.
public enum BodySite: String, Sendable, Codable, CaseIterable {
    case scalp, face, neck, chest, abdomen, upperBack, lowerBack, genitalArea
    case ear, shoulder, upperArm, forearm, hand, buttock, thigh, knee, lowerLeg, foot

    /// Whether the site is one of a left and right pair (an arm) rather than on the midline (the back).
    public var isPaired: Bool {
        switch self {
        case .scalp, .face, .neck, .chest, .abdomen, .upperBack, .lowerBack, .genitalArea: false
        case .ear, .shoulder, .upperArm, .forearm, .hand, .buttock, .thigh, .knee, .lowerLeg, .foot: true
        }
    }
}

/// The side of a paired body site, as the patient sees their own body (their left).
public enum BodySide: String, Sendable, Codable, CaseIterable {
    case left, right
}
