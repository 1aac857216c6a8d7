/* hk_keys: the directive names searchd knows in each config section (the
 * union of Manticore's and Sphinx 2.2.11's key tables), the section types of
 * a config and of a scenario, and the nearest known name for a typo. A name
 * list is data, not searchd code: it only lets hakarma say "did you mean". */
#include "hk_keys.h"

#include <string.h>
#include <strings.h>

static const char *const index_keys[] = {
    "access_blob_attrs", "access_columnar_attrs", "access_dict", "access_doclists",
    "access_hitlists", "access_plain_attrs", "access_secondary", "agent", "agent_blackhole",
    "agent_connect_timeout", "agent_persistent", "agent_query_timeout", "agent_retry_count",
    "attr_update_reserve", "bigram_delimiter", "bigram_freq_words", "bigram_index", "blend_chars",
    "blend_mode", "boolean_mode", "charset_table", "charset_type", "columnar_attrs",
    "columnar_compression_int64", "columnar_compression_uint32", "columnar_no_fast_fetch",
    "columnar_strings_no_hash", "columnar_subblock", "dict", "diskchunk_flush_search_timeout",
    "diskchunk_flush_write_timeout", "divide_remote_ranges", "docinfo", "docstore_block_size",
    "docstore_compression", "docstore_compression_level", "embedded_limit", "enable_star",
    "engine_default", "exceptions", "expand_keywords", "global_idf", "ha_strategy", "hit_format",
    "hitless_words", "html_index_attrs", "html_remove_elements", "html_strip", "ignore_chars",
    "index_exact_words", "index_field_lengths", "index_sp", "index_token_filter", "index_zones",
    "infix_fields", "inplace_docinfo_gap", "inplace_enable", "inplace_hit_gap",
    "inplace_reloc_factor", "inplace_write_factor", "jieba_hmm", "jieba_mode",
    "jieba_user_dict_path", "json_secondary_indexes", "killlist_target", "knn", "local",
    "max_substring_len", "min_infix_len", "min_prefix_len", "min_stemming_len", "min_word_len",
    "mirror_retry_count", "mlock", "morphology", "morphology_skip_fields", "ngram_chars",
    "ngram_len", "ondisk_attrs", "ondisk_dict", "optimize_cutoff", "overshort_step", "path",
    "phrase_boundary", "phrase_boundary_step", "prefix_fields", "preopen", "ranker",
    "read_buffer_columnar", "read_buffer_docs", "read_buffer_hits", "read_unhinted",
    "regexp_filter", "rlp_context", "rowwise_attrs", "rt_attr_bigint", "rt_attr_bool",
    "rt_attr_float", "rt_attr_float_vector", "rt_attr_float_vector_array", "rt_attr_json",
    "rt_attr_multi", "rt_attr_multi_64", "rt_attr_string", "rt_attr_timestamp", "rt_attr_uint",
    "rt_field", "rt_mem_limit", "source", "stopword_step", "stopwords", "stopwords_unstemmed",
    "stored_fields", "stored_only_fields", "type", "wordforms",
    NULL};

static const char *const searchd_keys[] = {
    "access_blob_attrs", "access_columnar_attrs", "access_dict", "access_doclists",
    "access_hitlists", "access_plain_attrs", "access_secondary", "accurate_aggregation",
    "address", "agent_connect_timeout", "agent_query_timeout", "agent_retry_count",
    "agent_retry_delay", "attr_autoconv_strict", "attr_flush_period", "auth", "auth_log_level",
    "auth_password_min_length", "auth_password_policy", "auto_optimize", "auto_schema",
    "binlog_common", "binlog_filename_digits", "binlog_flush", "binlog_max_log_size",
    "binlog_path", "boolean_simplify", "buddy_path", "client_timeout", "collation_libc_locale",
    "collation_server", "data_dir", "diskchunk_flush_search_timeout",
    "diskchunk_flush_write_timeout", "dist_threads", "distinct_precision_threshold",
    "docstore_cache_size", "embeddings_threads", "engine", "expansion_limit",
    "expansion_merge_threshold_docs", "expansion_merge_threshold_hits", "expansion_phrase_limit",
    "expansion_phrase_warning", "grouping_in_utc", "ha_period_karma", "ha_ping_interval",
    "hostname_lookup", "jobs_queue_size", "join_batch_size", "join_cache_size",
    "kibana_version_string", "knn_parallel_build", "listen", "listen_backlog", "listen_tfo",
    "log", "log_http", "max_batch_queries", "max_children", "max_connections",
    "max_filter_values", "max_filters", "max_matches", "max_open_files", "max_packet_size",
    "max_threads_per_query", "merge_buffer_attributes", "merge_buffer_columnar",
    "merge_buffer_dict", "merge_buffer_fulltext", "merge_buffer_storage", "merge_chunks_per_job",
    "merge_si_memlimit", "mva_updates_pool", "mysql_version_string", "net_send_job",
    "net_throttle_accept", "net_throttle_action", "net_wait_tm", "net_workers", "network_timeout",
    "node_address", "not_terms_only_allowed", "ondisk_attrs_default", "ondisk_dict_default",
    "optimize_cutoff", "parallel_chunk_merges", "persistent_connections_limit", "pid_file",
    "plugin_dir", "port", "predicted_time_costs", "prefer_rotate", "prefork",
    "prefork_rotation_throttle", "preopen_indexes", "preopen_tables", "pseudo_sharding",
    "qcache_max_bytes", "qcache_thresh_msec", "qcache_ttl_sec", "query_log", "query_log_commands",
    "query_log_format", "query_log_min_msec", "query_log_mode", "queue_max_length", "read_buffer",
    "read_buffer_columnar", "read_buffer_docs", "read_buffer_hits", "read_timeout",
    "read_unhinted", "replication_connect_timeout", "replication_query_timeout",
    "replication_retry_count", "replication_retry_delay", "reset_network_timeout_on_packet",
    "rt_flush_period", "rt_merge_iops", "rt_merge_maxiosize", "seamless_rotate",
    "secondary_index_block_cache", "secondary_indexes", "server_id", "shutdown_timeout",
    "shutdown_token", "skiplist_cache_size", "snippets_file_prefix", "sphinxql_state",
    "sphinxql_timeout", "ssl_ca", "ssl_cert", "ssl_key", "subtree_docs_cache",
    "subtree_hits_cache", "telemetry", "thread_stack", "threads", "timezone", "unlink_old",
    "watchdog", "workers",
    NULL};

static const char *const indexer_keys[] = {
    "lemmatizer_cache", "max_file_field_buffer", "max_iops", "max_iosize",
    "max_xmlpipe2_field", "mem_limit", "on_file_field_error", "on_json_attr_error",
    "json_autoconv_numbers", "json_autoconv_keynames", "write_buffer", "ignore_non_plain", NULL};

static const char *const common_keys[] = {
    "icu_data_dir", "json_autoconv_keynames", "json_autoconv_numbers", "lemmatizer_base",
    "on_json_attr_error", "plugin_dir", "progressive_merge", "rlp_environment",
    "rlp_max_batch_docs", "rlp_max_batch_size", "rlp_root", NULL};

const char *const hk_conf_sections[] = {"source", "index", "table", "indexer", "searchd",
                                        "common", NULL};

const char *const *hk_keys_of(const char *section)
{
    if (!strcasecmp(section, "index") || !strcasecmp(section, "table"))
        return index_keys;
    if (!strcasecmp(section, "searchd"))
        return searchd_keys;
    if (!strcasecmp(section, "indexer"))
        return indexer_keys;
    if (!strcasecmp(section, "common"))
        return common_keys;
    return NULL;
}

int hk_word_in(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (!strcasecmp(w, *list))
            return 1;
    return 0;
}

/* Edit distance (insert, delete, substitute, swap of neighbours), capped at 9. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 9;
    int d[41][41];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int c = a[i - 1] != b[j - 1];
            int v = d[i - 1][j - 1] + c;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m] < 9 ? d[n][m] : 9;
}

const char *hk_nearest(const char *w, const char *const *list)
{
    const char *best = NULL;
    int bd = 9;
    size_t wl = strlen(w);
    for (; *list; list++) {
        int d = distance(w, *list);
        size_t l = strlen(*list);
        /* a prefix or a plural of a known name also counts as near */
        if (d > 1 && ((wl >= 4 && !strncmp(w, *list, wl)) || (l >= 4 && !strncmp(w, *list, l))))
            d = 1;
        if (d < bd) {
            bd = d;
            best = *list;
        }
    }
    size_t lim = wl <= 4 ? 1 : wl <= 8 ? 2 : 3;
    return best && (size_t)bd <= lim ? best : NULL;
}
