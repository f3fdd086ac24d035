/**
 * The page's query string as state: filters and page numbers live in the address, so a view can be
 * shared, bookmarked and survives a reload. Setting a key to null removes it.
 */
import { useLocation, useSearch } from 'wouter-preact';

export function useSearchParams(): [
  URLSearchParams,
  (changes: Record<string, string | null>) => void,
] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const update = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(search);
    for (const [key, value] of Object.entries(changes)) {
      if (value === null || value === '') {
        next.delete(key);
      } else {
        next.set(key, value);
      }
    }
    const query = next.toString();
    navigate(query === '' ? location : `${location}?${query}`);
  };
  return [params, update];
}
