#include "CImageCodecs.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>

// libheif reports failures as heif_error values; nothing longjmps.

// MARK: HEVC decoding that reports damage

// libde265 conceals damage and carries on, keeping a warning where it notices it (a substream whose end bit is not
// set, a CTB past the picture, a header out of range: de265_get_warning). libheif's own libde265 plugin never reads
// those warnings, so heif_decode_image succeeds on a file with flipped bytes in its coded data, strict_decoding or
// not, and the garbage blocks raise the sharpness measure. The plugin below makes the same libde265 calls as
// libheif's, but treats each warning as heif_decoding_options documents strict_decoding: an error when strict, a
// decoding warning on the image otherwise. ct_heif_decode registers it once and asks for it by name, strictly.
//
// Damage libde265 does not notice still passes: garbage that happens to decode as the end of the slice leaves the
// rest of the picture undecoded without a warning, and libde265 1.0 says nothing public about which CTBs it decoded.

static const char strict_hevc_id[] = "caretide-libde265-strict";
static const char corrupt_hevc[] = "Corrupt HEVC data";

typedef struct {
    de265_decoder_context *context;
    int strict;
} strict_hevc_decoder;

/// The text of the plugin's error, per thread: libheif copies a plugin's message only after freeing the decoder.
static _Thread_local char strict_hevc_message[200];

static struct heif_error strict_hevc_ok(void) { return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "Success"}; }

static struct heif_error strict_hevc_failure(const char *what) {
    snprintf(strict_hevc_message, sizeof strict_hevc_message, "%s: %s", corrupt_hevc, what);
    return (struct heif_error){heif_error_Decoder_plugin_error, heif_suberror_Unspecified, strict_hevc_message};
}

static struct heif_error strict_hevc_no_memory(void) {
    return (struct heif_error){heif_error_Memory_allocation_error, heif_suberror_Unspecified, "no memory to decode HEVC"};
}

static const char *strict_hevc_name(void) { return "libde265, damage reported"; }
static void strict_hevc_init(void) { de265_init(); }
static void strict_hevc_deinit(void) { de265_free(); }

/// Above the priority of libheif's own libde265 plugin (100): HEVC never falls back to the plugin that hides damage.
static int strict_hevc_supports(enum heif_compression_format format) { return format == heif_compression_HEVC ? 1000 : 0; }

static struct heif_error strict_hevc_new(void **decoder) {
    strict_hevc_decoder *created = calloc(1, sizeof *created);
    if (created != NULL) created->context = de265_new_decoder();
    if (created == NULL || created->context == NULL) {
        free(created);
        return strict_hevc_no_memory();
    }
    *decoder = created;
    return strict_hevc_ok();
}

static void strict_hevc_free(void *decoder) {
    strict_hevc_decoder *self = decoder;
    de265_free_decoder(self->context);
    free(self);
}

static void strict_hevc_set_strict(void *decoder, int flag) { ((strict_hevc_decoder *)decoder)->strict = flag; }

// MARK: The picture size a stream declares

/// The most pixels a picture of the decode on this thread may have; 0: no limit. libheif takes a HEIF file's size from
/// its ispe box, but libde265 allocates the picture its sequence parameter set declares, which a file may make far
/// larger: so the SPS is read here, before libde265 sees it. Set by `ct_heif_decode`, which has libheif decode every
/// tile on its own thread.
static _Thread_local long long strict_hevc_max_pixels;

/// An SPS's bits, its emulation prevention bytes (00 00 03) skipped (ITU-T H.265 7.3.1.1, 7.4.2).
typedef struct {
    const uint8_t *bytes;
    size_t size, at;
    int bit, zeros;
    int overrun;
} sps_bits;

static int sps_bit(sps_bits *bits) {
    if (bits->bit == 0) {
        if (bits->at >= bits->size) {
            bits->overrun = 1;
            return 0;
        }
        if (bits->zeros >= 2 && bits->bytes[bits->at] == 3) {
            bits->zeros = 0;
            bits->at++;
            return sps_bit(bits);
        }
        bits->zeros = bits->bytes[bits->at] == 0 ? bits->zeros + 1 : 0;
    }
    int value = (bits->bytes[bits->at] >> (7 - bits->bit)) & 1;
    if (++bits->bit == 8) {
        bits->bit = 0;
        bits->at++;
    }
    return value;
}

static uint64_t sps_bits_value(sps_bits *bits, int count) {
    uint64_t value = 0;
    for (int index = 0; index < count; index++) value = value << 1 | (uint64_t)sps_bit(bits);
    return value;
}

/// ue(v), Exp-Golomb (9.2); more than 31 leading zeros is no value an SPS field may take.
static uint64_t sps_unsigned(sps_bits *bits) {
    int zeros = 0;
    while (!bits->overrun && sps_bit(bits) == 0) {
        if (++zeros > 31) {
            bits->overrun = 1;
            return 0;
        }
    }
    return ((uint64_t)1 << zeros) - 1 + sps_bits_value(bits, zeros);
}

/// The luma width and height an SPS NAL unit declares (7.3.2.2.1, 7.3.3); 0 when it is cut off.
static int sps_size(const uint8_t *nal, size_t size, uint64_t *width, uint64_t *height) {
    sps_bits bits = {.bytes = nal, .size = size, .at = 2};  // past the two-byte NAL unit header
    sps_bits_value(&bits, 4);  // sps_video_parameter_set_id
    int sub_layers = (int)sps_bits_value(&bits, 3);  // sps_max_sub_layers_minus1
    sps_bits_value(&bits, 1);  // sps_temporal_id_nesting_flag
    sps_bits_value(&bits, 88 + 8);  // the general profile, tier and level
    int profile_present[8] = {0}, level_present[8] = {0};
    for (int layer = 0; layer < sub_layers; layer++) {
        profile_present[layer] = sps_bit(&bits);
        level_present[layer] = sps_bit(&bits);
    }
    if (sub_layers > 0) sps_bits_value(&bits, 2 * (8 - sub_layers));  // reserved_zero_2bits
    for (int layer = 0; layer < sub_layers; layer++) {
        if (profile_present[layer]) sps_bits_value(&bits, 88);
        if (level_present[layer]) sps_bits_value(&bits, 8);
    }
    sps_unsigned(&bits);  // sps_seq_parameter_set_id
    if (sps_unsigned(&bits) == 3) sps_bit(&bits);  // chroma_format_idc, separate_colour_plane_flag
    *width = sps_unsigned(&bits);
    *height = sps_unsigned(&bits);
    return !bits.overrun;
}

/// NAL units, each after a 4-byte big-endian length: the hvcC headers, then the item's data (as libheif pushes them).
/// An SPS declaring more pixels than `strict_hevc_max_pixels` is refused before libde265 reads it.
static struct heif_error strict_hevc_push(void *decoder, const void *data, size_t size) {
    strict_hevc_decoder *self = decoder;
    const uint8_t *bytes = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4) return strict_hevc_failure("a NAL unit length is cut off");
        size_t length = (size_t)bytes[at] << 24 | (size_t)bytes[at + 1] << 16 | (size_t)bytes[at + 2] << 8 | (size_t)bytes[at + 3];
        at += 4;
        if (length > size - at || length > INT32_MAX) return strict_hevc_failure("a NAL unit runs past the end of the data");
        if (length >= 2 && (bytes[at] >> 1 & 0x3F) == 33 && strict_hevc_max_pixels > 0) {  // nal_unit_type SPS_NUT
            uint64_t width = 0, height = 0;
            if (!sps_size(bytes + at, length, &width, &height)) return strict_hevc_failure("a sequence parameter set is cut off");
            if (width * height > (uint64_t)strict_hevc_max_pixels) {
                snprintf(
                    strict_hevc_message, sizeof strict_hevc_message, "%s: a picture of %llux%llu pixels, more than the %lld allowed", corrupt_hevc,
                    (unsigned long long)width, (unsigned long long)height, strict_hevc_max_pixels);
                return (struct heif_error){heif_error_Decoder_plugin_error, heif_suberror_Unspecified, strict_hevc_message};
            }
        }
        de265_error error = de265_push_NAL(self->context, bytes + at, (int)length, 0, NULL);
        if (!de265_isOK(error)) return strict_hevc_failure(de265_get_error_text(error));
        at += length;
    }
    return strict_hevc_ok();
}

/// A problem found while decoding: returned when strict, else kept as a warning on the image and Ok returned.
static struct heif_error strict_hevc_note(const strict_hevc_decoder *self, struct heif_image *image, struct heif_error problem) {
    if (problem.code == heif_error_Ok || self->strict) return problem;
    heif_image_add_decoding_warning(image, problem);
    return strict_hevc_ok();
}

static int strict_hevc_planes_of(const struct de265_image *picture) { return de265_get_chroma_format(picture) == de265_chroma_mono ? 1 : 3; }

static const enum heif_channel strict_hevc_channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};

/// The decoded planes copied into a new heif_image (YCbCr or monochrome, at the stream's bit depth).
static struct heif_error strict_hevc_copy(const struct de265_image *picture, struct heif_image **out) {
    int planes = strict_hevc_planes_of(picture);
    struct heif_image *image = NULL;
    struct heif_error error = heif_image_create(
        de265_get_image_width(picture, 0), de265_get_image_height(picture, 0), planes == 1 ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
        (enum heif_chroma)de265_get_chroma_format(picture), &image);
    if (error.code != heif_error_Ok) return error;
    int depth = de265_get_bits_per_pixel(picture, 0);
    for (int plane = 0; plane < planes; plane++) {
        int stride = 0;
        const uint8_t *source = de265_get_image_plane(picture, plane, &stride);
        int width = de265_get_image_width(picture, plane), height = de265_get_image_height(picture, plane);
        if (de265_get_bits_per_pixel(picture, plane) != depth) {
            error = strict_hevc_failure("planes of different bit depths");
        } else if (source == NULL || width <= 0 || height <= 0) {
            error = strict_hevc_failure("a plane is missing");
        } else {
            error = heif_image_add_plane(image, strict_hevc_channels[plane], width, height, depth);
        }
        if (error.code != heif_error_Ok) {
            heif_image_release(image);
            return error;
        }
        int target_stride = 0;
        uint8_t *target = heif_image_get_plane(image, strict_hevc_channels[plane], &target_stride);
        size_t row_bytes = (size_t)width * (size_t)((depth + 7) / 8);
        for (int row = 0; row < height; row++) {
            memcpy(target + (size_t)row * (size_t)target_stride, source + (size_t)row * (size_t)stride, row_bytes);
        }
    }
    *out = image;
    return strict_hevc_ok();
}

/// The colour description of the stream's VUI, which libheif uses where the file has no nclx colr box.
static struct heif_error strict_hevc_colour(const strict_hevc_decoder *self, const struct de265_image *picture, struct heif_image *image) {
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    if (nclx == NULL) return strict_hevc_no_memory();
    struct heif_error settings[3] = {
        heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)de265_get_image_colour_primaries(picture)),
        heif_nclx_color_profile_set_transfer_characteristics(nclx, (uint16_t)de265_get_image_transfer_characteristics(picture)),
        heif_nclx_color_profile_set_matrix_coefficients(nclx, (uint16_t)de265_get_image_matrix_coefficients(picture)),
    };
    nclx->full_range_flag = (uint8_t)de265_get_image_full_range_flag(picture);
    struct heif_error result = strict_hevc_ok();
    for (int index = 0; index < 3 && result.code == heif_error_Ok; index++) result = strict_hevc_note(self, image, settings[index]);
    if (result.code == heif_error_Ok) heif_image_set_nclx_color_profile(image, nclx);
    heif_nclx_color_profile_free(nclx);
    return result;
}

/// The decoder's warnings, each but the two about threads (which say only how it decoded) damage it concealed.
static struct heif_error strict_hevc_warnings(const strict_hevc_decoder *self, struct heif_image *image) {
    for (de265_error warning = de265_get_warning(self->context); warning != DE265_OK; warning = de265_get_warning(self->context)) {
        if (warning == DE265_WARNING_NO_WPP_CANNOT_USE_MULTITHREADING || warning == DE265_WARNING_NUMBER_OF_THREADS_LIMITED_TO_MAXIMUM) continue;
        // A warning kept on the image needs a message that lives as long as it: libde265's texts are static.
        struct heif_error problem = self->strict
            ? strict_hevc_failure(de265_get_error_text(warning))
            : (struct heif_error){heif_error_Decoder_plugin_error, heif_suberror_Unspecified, de265_get_error_text(warning)};
        problem = strict_hevc_note(self, image, problem);
        if (problem.code != heif_error_Ok) return problem;
    }
    return strict_hevc_ok();
}

static struct heif_error strict_hevc_decode(void *decoder, struct heif_image **out) {
    strict_hevc_decoder *self = decoder;
    *out = NULL;
    de265_flush_data(self->context);
    struct heif_image *image = NULL;
    struct heif_error error = strict_hevc_ok();
    de265_error status = DE265_OK;
    int more = 1;
    while (more && error.code == heif_error_Ok) {
        more = 0;
        status = de265_decode(self->context, &more);
        if (status != DE265_OK) break;
        // libde265 keeps a picture only until its next call: it is copied at once.
        const struct de265_image *picture = de265_get_next_picture(self->context);
        if (picture == NULL) continue;
        // One picture is expected; should there be more, the last is kept, as libheif's plugin does.
        if (image != NULL) heif_image_release(image);
        image = NULL;
        error = strict_hevc_copy(picture, &image);
        if (error.code == heif_error_Ok) error = strict_hevc_colour(self, picture, image);
    }
    if (error.code == heif_error_Ok && !de265_isOK(status) && status != DE265_ERROR_WAITING_FOR_INPUT_DATA) {
        error = strict_hevc_failure(de265_get_error_text(status));
    }
    if (error.code == heif_error_Ok && image == NULL) error = strict_hevc_failure("no picture was decoded");
    if (error.code == heif_error_Ok) error = strict_hevc_warnings(self, image);
    if (error.code != heif_error_Ok) {
        if (image != NULL) heif_image_release(image);
        return error;
    }
    *out = image;
    return strict_hevc_ok();
}

static const struct heif_decoder_plugin strict_hevc_plugin = {
    .plugin_api_version = 3,
    .get_plugin_name = strict_hevc_name,
    .init_plugin = strict_hevc_init,
    .deinit_plugin = strict_hevc_deinit,
    .does_support_format = strict_hevc_supports,
    .new_decoder = strict_hevc_new,
    .free_decoder = strict_hevc_free,
    .push_data = strict_hevc_push,
    .decode_image = strict_hevc_decode,
    .set_strict_decoding = strict_hevc_set_strict,
    .id_name = strict_hevc_id,
};

static pthread_once_t strict_hevc_once = PTHREAD_ONCE_INIT;
static struct heif_error strict_hevc_registration;

/// Once, before this file's first decode: libheif's list of plugins has no lock.
static void strict_hevc_register(void) { strict_hevc_registration = heif_register_decoder_plugin(&strict_hevc_plugin); }

// MARK: Reading HEIF

/// Opens the file and its primary image; on failure fills `message` and releases what was opened.
static ct_status open_primary(
    const uint8_t *data, size_t size, struct heif_context **context, struct heif_image_handle **handle, char *message,
    size_t message_size) {
    *context = heif_context_alloc();
    if (*context == NULL) return CT_NO_MEMORY;
    struct heif_error error = heif_context_read_from_memory_without_copy(*context, data, size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(*context, handle);
    if (error.code != heif_error_Ok) {
        snprintf(message, message_size, "%s", error.message);
        heif_context_free(*context);
        return CT_INVALID;
    }
    return CT_OK;
}

ct_status ct_heif_size(const uint8_t *data, size_t size, int *width, int *height, char *message, size_t message_size) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    ct_status status = open_primary(data, size, &context, &handle, message, message_size);
    if (status != CT_OK) return status;
    *width = heif_image_handle_get_width(handle);
    *height = heif_image_handle_get_height(handle);
    heif_image_handle_release(handle);
    heif_context_free(context);
    return CT_OK;
}

/// A failed decode's message: the plugin's own words when it was the plugin that refused (libheif puts its error
/// category in front of them), else libheif's.
static void copy_decode_error(const char *text, char *message, size_t message_size) {
    const char *ours = text == NULL ? NULL : strstr(text, corrupt_hevc);
    snprintf(message, message_size, "%s", ours != NULL ? ours : text != NULL ? text : "");
}

ct_status ct_heif_decode(
    const uint8_t *data, size_t size, long long max_pixels, ct_pixels *out, char *message, size_t message_size) {
    pthread_once(&strict_hevc_once, strict_hevc_register);
    if (strict_hevc_registration.code != heif_error_Ok) {
        // libheif's own plugin would hide damage: better no HEIF at all.
        snprintf(message, message_size, "the HEVC decoder could not be set up: %s", strict_hevc_registration.message);
        return CT_INVALID;
    }
    struct heif_context *context;
    struct heif_image_handle *handle;
    ct_status status = open_primary(data, size, &context, &handle, message, message_size);
    if (status != CT_OK) return status;
    int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    if ((long long)width * (long long)height > max_pixels) {
        snprintf(message, message_size, "%dx%d pixels", width, height);
        heif_image_handle_release(handle);
        heif_context_free(context);
        return CT_TOO_MANY_PIXELS;
    }
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        heif_image_handle_release(handle);
        heif_context_free(context);
        return CT_NO_MEMORY;
    }
    // Strict: damage the decoder had to conceal is an error, as a libjpeg warning is in jpeg.c. The plugin is named
    // as well as ranked first, so that HEVC is never decoded by one that hides damage.
    options->strict_decoding = 1;
    options->decoder_id = strict_hevc_id;
    // Every tile on this thread, so that the plugin reads this decode's limit.
    heif_context_set_max_decoding_threads(context, 0);
    strict_hevc_max_pixels = max_pixels;
    // The rotation and mirroring the file declares are applied: the pixels come out as the photo is shown.
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options);
    strict_hevc_max_pixels = 0;
    heif_decoding_options_free(options);
    heif_image_handle_release(handle);
    if (error.code != heif_error_Ok) {
        copy_decode_error(error.message, message, message_size);
        heif_context_free(context);
        return CT_INVALID;
    }
    // Strict decoding should leave none; a warning kept by any other step is still damage.
    struct heif_error warning;
    if (heif_image_get_decoding_warnings(image, 0, &warning, 1) > 0) {
        copy_decode_error(warning.message, message, message_size);
        heif_image_release(image);
        heif_context_free(context);
        return CT_INVALID;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    width = heif_image_get_width(image, heif_channel_interleaved);
    height = heif_image_get_height(image, heif_channel_interleaved);
    uint8_t *pixels = plane == NULL ? NULL : malloc((size_t)width * (size_t)height * 3);
    if (pixels == NULL) {
        heif_image_release(image);
        heif_context_free(context);
        return plane == NULL ? CT_INVALID : CT_NO_MEMORY;
    }
    for (int row = 0; row < height; row++) memcpy(pixels + (size_t)row * (size_t)width * 3, plane + (size_t)row * (size_t)stride, (size_t)width * 3);
    heif_image_release(image);
    heif_context_free(context);
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    out->components = 3;
    return CT_OK;
}
