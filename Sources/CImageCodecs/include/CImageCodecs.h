// Image decoding and encoding for CaretideImaging, over the system's libjpeg-turbo, libpng and libheif (Debian's
// libjpeg62-turbo-dev, libpng-dev and libheif-dev). libjpeg reports errors by longjmp, which Swift cannot cross, so every call
// that can fail is wrapped here and returns a status with a message instead.
#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H

#include <stddef.h>
#include <stdint.h>

/// What a call made of its input.
typedef enum {
    CT_OK = 0,
    /// The bytes are not a decodable image of the format (the message says what the library found wrong).
    CT_INVALID = 1,
    /// The header declares more pixels than allowed: refused before any pixel is decoded.
    CT_TOO_MANY_PIXELS = 2,
    /// A progressive JPEG with more scans than allowed (a file built to make decoding slow).
    CT_TOO_MANY_SCANS = 3,
    /// Memory could not be allocated.
    CT_NO_MEMORY = 4,
    /// Decoding would take more memory than allowed (a progressive JPEG's whole-image coefficients).
    CT_TOO_MUCH_MEMORY = 5,
} ct_status;

/// Pixels in rows, top to bottom, `components` bytes per pixel (1: luma, 3: RGB). Free with `ct_free`.
typedef struct {
    uint8_t *pixels;
    int width;
    int height;
    int components;
} ct_pixels;

/// The size a header declares, read without decoding pixels.
ct_status ct_jpeg_size(const uint8_t *data, size_t size, int *width, int *height, char *message, size_t message_size);
ct_status ct_png_size(const uint8_t *data, size_t size, int *width, int *height, char *message, size_t message_size);
/// HEIF: the primary image's size, as shown (after the rotation the file declares).
ct_status ct_heif_size(const uint8_t *data, size_t size, int *width, int *height, char *message, size_t message_size);

/// Decodes a JPEG to luma (`gray` 1) or RGB, scaled down by `scale_denominator` (1, 2, 4 or 8: libjpeg's DCT
/// scaling, far cheaper than decoding fully and resizing), into the caller's `pixels`: rows top to bottom, 1 or 3
/// bytes a pixel, the width and height each divided by the denominator and rounded up, which `capacity` must be
/// exactly (the caller allocates the photo's one copy; nothing is allocated here to be copied again). Sets `*width`
/// and `*height`. Refuses a header of more than `max_pixels` pixels and a file of more than `max_scans` scans before
/// decoding them, and a file whose decoding would hold more than `max_memory` bytes in libjpeg (CT_TOO_MUCH_MEMORY).
ct_status ct_jpeg_decode(
    const uint8_t *data, size_t size, int gray, int scale_denominator, long long max_pixels, int max_scans, long long max_memory,
    uint8_t *pixels, size_t capacity, int *width, int *height, char *message, size_t message_size);

/// Decodes a PNG (any bit depth, palette, alpha composited on white) to luma or RGB, 8 bits a sample, into the
/// caller's `pixels`, which must hold exactly width × height × (1 or 3) bytes (`capacity`). Sets `*width` and
/// `*height`. Refuses a header of more than `max_pixels` pixels before decoding.
ct_status ct_png_decode(
    const uint8_t *data, size_t size, int gray, long long max_pixels, uint8_t *pixels, size_t capacity, int *width, int *height,
    char *message, size_t message_size);

/// Decodes a HEIF file's primary image to RGB, rotated and mirrored as the file declares, into pixels allocated here
/// (its size is certain only once decoded: a clean aperture's rounding). Refuses more than `max_pixels` pixels before
/// decoding.
ct_status ct_heif_decode(
    const uint8_t *data, size_t size, long long max_pixels, ct_pixels *out, char *message, size_t message_size);

/// Encodes pixels as a baseline JPEG of `quality` (1–100); `*out` is freed with `ct_free`.
ct_status ct_jpeg_encode(
    const uint8_t *pixels, int width, int height, int components, int quality, uint8_t **out, size_t *out_size, char *message,
    size_t message_size);

void ct_free(void *pointer);

#endif
